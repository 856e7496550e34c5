/**
 * Limits the local gateway puts on a request before any Lambda sees it. A payload over API
 * Gateway's 10 MB is refused with 413 as soon as it is known to be over (never kept whole). The
 * request target must be a path (origin form): an absolute URI, whose host could differ from the
 * Host header that names the tenant, and `*` are refused with 400 (a client of an API, as opposed
 * to a proxy, has no reason to send either).
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { HttpResult } from '../shared/http/context.ts'
import { errorResult } from '../shared/http/responses.ts'
import { send } from './gateway-response.ts'

/** API Gateway's HTTP API takes a request payload of at most 10 MB. */
export const maxPayloadBytes = 10 * 1024 * 1024

export const payloadTooLarge = () => errorResult(413, 'The request body is over the 10 MB limit')
const notAPath = () => errorResult(400, 'The request target must be a path, such as /api/v1/users')

export class PayloadTooLarge extends Error {}

/** What refuses the request before its body is read: a target that is not a path, a length over the limit. */
export function refusalOf(req: IncomingMessage): HttpResult | undefined {
  if (!req.url?.startsWith('/')) return notAPath()
  if (Number(req.headers['content-length'] ?? 0) > maxPayloadBytes) return payloadTooLarge()
  return undefined
}

/** The body, up to the limit: a chunked body is let go, not kept, once it grows past it. */
export function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    const onData = (c: Buffer) => {
      size += c.length
      if (size <= maxPayloadBytes) return void chunks.push(c)
      req.off('data', onData)
      chunks.length = 0
      reject(new PayloadTooLarge())
    }
    req.on('data', onData)
    req.on('end', () => resolve(Buffer.concat(chunks)))
    req.on('error', reject)
  })
}

/**
 * After a refusal, what is left of the body is read and dropped (never kept), so that the client
 * gets to read the answer: closing at once, with its data unread, would reset the connection under
 * a client still sending and lose the answer with it. A client that keeps sending past a bound is
 * cut off.
 */
const lingerBytes = 32 * 1024 * 1024
const lingerMs = 10_000

export function refuse(req: IncomingMessage, res: ServerResponse, result: HttpResult): void {
  const socket = req.socket
  const closeNow = socket.destroySoon.bind(socket)
  // Node closes a `Connection: close` exchange outright once the answer is written. While the body
  // is still coming, close it in stages instead (RFC 9112, 9.6): our side now, the rest when the
  // body has ended, the client has closed, or it is cut off.
  socket.destroySoon = () => (req.complete ? closeNow() : void socket.end())
  send(res, result)
  let dropped = 0
  const cutOff = () => socket.destroy()
  const timer = setTimeout(cutOff, lingerMs).unref()
  req.on('data', (c: Buffer) => {
    dropped += c.length
    if (dropped > lingerBytes) cutOff()
  })
  req.once('end', () => {
    clearTimeout(timer)
    if (socket.writableEnded) socket.destroy()
  })
  req.once('close', () => clearTimeout(timer))
  req.resume()
}
