/** A webhook or record-store receiver on loopback: records every request, answers as told. */
import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { webhookViolationOf } from './openapi-validation.ts'

export interface Received {
  readonly method: string
  readonly url: string
  readonly headers: IncomingMessage['headers']
  readonly raw: Buffer
  readonly at: number
}

export type Answer = {
  status: number
  body?: string
  delayMs?: number
  redirect?: string
  headers?: Record<string, string>
}

export interface Receiver {
  readonly url: string
  readonly requests: Received[]
  /** Waits until `n` requests have arrived (or the time is up: a minute unless told). */
  waitFor(n: number, timeoutMs?: number): Promise<Received[]>
  close(): Promise<void>
}

/** Every receiver still listening; the test setup closes them after each test. */
const open = new Set<Receiver>()
/** Webhook deliveries that the OpenAPI document's `webhooks:` do not describe, since the last close. */
const violations: string[] = []

/** Closes the test's receivers, then fails it if any delivery they received broke the document. */
export async function closeOpenReceivers(): Promise<void> {
  await Promise.all([...open].map((r) => r.close()))
  const found = violations.splice(0)
  if (found.length > 0) throw new Error(found.join('\n'))
}

export async function startReceiver(
  answer: (n: number, req: Received) => Answer = () => ({ status: 200 }),
): Promise<Receiver> {
  const requests: Received[] = []
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const got: Received = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        raw: Buffer.concat(chunks),
        at: Date.now(),
      }
      requests.push(got)
      const violation = webhookViolationOf(got.headers, got.raw.toString('utf8'))
      if (violation) violations.push(violation)
      const a = answer(requests.length, got)
      const reply = () => {
        if (res.destroyed) return
        res.writeHead(a.status, {
          ...(a.redirect ? { location: a.redirect } : { 'content-type': 'text/plain' }),
          ...a.headers,
        })
        res.end(a.body ?? 'ok')
      }
      if (a.delayMs) setTimeout(reply, a.delayMs)
      else reply()
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const { port } = server.address() as AddressInfo
  const receiver: Receiver = {
    url: `http://127.0.0.1:${port}`,
    requests,
    async waitFor(n, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs
      while (requests.length < n && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
      return requests
    },
    close: () =>
      new Promise<void>((r) => {
        open.delete(receiver)
        server.closeAllConnections()
        server.close(() => r())
      }),
  }
  open.add(receiver)
  return receiver
}
