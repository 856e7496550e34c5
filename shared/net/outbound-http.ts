/**
 * Outbound HTTP to customer URLs: through the SSRF guard (URL rules, then the check at connect
 * time), one overall deadline, redirects never followed, the response body read only up to a few
 * KB. A response that arrives after the deadline is never seen: the request is destroyed.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http'
import { request as httpsRequest } from 'node:https'
import { checkUrl, guardedLookup, UnsafeTargetError, type GuardOptions } from './ssrf-guard.ts'

export interface OutboundRequest {
  readonly url: string
  readonly method: 'GET' | 'POST' | 'PUT'
  readonly headers: Readonly<Record<string, string>>
  /** The exact bytes to send (no re-serialisation after signing). */
  readonly body?: Buffer
  readonly timeoutMs: number
  readonly guard: GuardOptions
  /** How much of the response body to keep. @default 4096 */
  readonly maxResponseBytes?: number
}

export type OutboundResult =
  | {
      readonly kind: 'response'
      readonly status: number
      readonly body: string
      readonly durationMs: number
      /** Response headers, names lowercased (Node's own parsing). */
      readonly headers: Readonly<Record<string, string | string[] | undefined>>
    }
  | {
      readonly kind: 'failure'
      readonly reason: 'timeout' | 'network' | 'refused'
      readonly message: string
      readonly durationMs: number
    }

export function sendOutbound(req: OutboundRequest): Promise<OutboundResult> {
  const started = performance.now()
  const elapsed = () => Math.round(performance.now() - started)
  let url: URL
  try {
    url = checkUrl(req.url, req.guard)
  } catch (err) {
    return Promise.resolve({
      kind: 'failure',
      reason: 'refused',
      message: (err as Error).message,
      durationMs: 0,
    })
  }
  const limit = req.maxResponseBytes ?? 4096
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest
  return new Promise((resolve) => {
    let settled = false
    const finish = (result: OutboundResult) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      resolve(result)
    }
    const r = request(
      url,
      {
        method: req.method,
        headers: { ...req.headers, ...(req.body ? { 'content-length': String(req.body.length) } : {}) },
        lookup: guardedLookup(req.guard),
        agent: false,
      },
      (res: IncomingMessage) => {
        const chunks: Buffer[] = []
        let size = 0
        res.on('data', (chunk: Buffer) => {
          if (size < limit) chunks.push(chunk.subarray(0, limit - size))
          size += chunk.length
        })
        res.on('end', () =>
          finish({
            kind: 'response',
            status: res.statusCode ?? 0,
            body: Buffer.concat(chunks).toString('utf8'),
            durationMs: elapsed(),
            headers: res.headers,
          }),
        )
        res.on('error', (err) =>
          finish({ kind: 'failure', reason: 'network', message: err.message, durationMs: elapsed() }),
        )
      },
    )
    const timer = setTimeout(() => {
      finish({
        kind: 'failure',
        reason: 'timeout',
        message: `no answer within ${req.timeoutMs} ms`,
        durationMs: elapsed(),
      })
      r.destroy()
    }, req.timeoutMs)
    r.on('error', (err) => {
      const refused = err instanceof UnsafeTargetError
      finish({
        kind: 'failure',
        reason: refused ? 'refused' : 'network',
        message: err.message,
        durationMs: elapsed(),
      })
    })
    r.end(req.body)
  })
}
