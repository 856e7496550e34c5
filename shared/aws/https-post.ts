/**
 * One POST to an AWS endpoint over node:https (node:http for a local emulator), on keep-alive
 * connections reused across calls and invocations, as the SDK's own HTTP handler sends them.
 * Not fetch: Node's fetch is undici, which takes as long to load as the rest of a route group's
 * bundle (docs/decisions/0013-request-path-cost.md, §4e).
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingHttpHeaders } from 'node:http'
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https'

/** The SDK's handler's agents: keep-alive, at most 50 connections to a host, more calls wait. */
const agents = {
  'http:': new HttpAgent({ keepAlive: true, maxSockets: 50 }),
  'https:': new HttpsAgent({ keepAlive: true, maxSockets: 50 }),
}

/** The answer, read whole. */
export interface PostAnswer {
  readonly status: number
  readonly headers: IncomingHttpHeaders
  readonly body: string
}

/**
 * Sends `body` to `url`. Rejects when no whole answer came: the connection failed or was cut, or
 * `timeoutMs` passed (null: no limit).
 */
export function post(
  url: URL,
  headers: Readonly<Record<string, string>>,
  body: string,
  timeoutMs: number | null,
): Promise<PostAnswer> {
  return new Promise((resolve, reject) => {
    const https = url.protocol === 'https:'
    const req = (https ? httpsRequest : httpRequest)(
      url,
      { method: 'POST', headers, agent: https ? agents['https:'] : agents['http:'] },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (chunk: Buffer) => chunks.push(chunk))
        res.once('error', reject)
        res.once('aborted', () => reject(new Error('the answer was cut')))
        res.once('end', () => {
          if (!res.complete) return reject(new Error('the answer was cut'))
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          })
        })
      },
    )
    req.once('error', reject)
    if (timeoutMs !== null)
      req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer in ${timeoutMs} ms`)))
    req.end(body)
  })
}
