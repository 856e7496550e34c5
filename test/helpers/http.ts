/**
 * HTTP against the local gateway with node:http (fetch would drop the Host header that selects
 * the tenant).
 */
import { randomInt } from 'node:crypto'
import { request } from 'node:http'
import { inject } from 'vitest'
import { violationOf } from './openapi-validation.ts'

export interface Reply {
  readonly status: number
  readonly headers: Record<string, string | string[] | undefined>
  readonly text: string
  readonly raw: Buffer
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON
  readonly body: any
}

export interface CallOptions {
  readonly host?: string
  readonly key?: string
  readonly body?: unknown
  /** Sent as is (for malformed JSON). */
  readonly rawBody?: string
  readonly headers?: Record<string, string>
  /** The client's own address (any 127.x.y.z on Linux): what per-address limits count by. */
  readonly localAddress?: string
  /** Another stack's gateway URL; the suite's shared stack by default. */
  readonly gateway?: string
}

/** A loopback address of the caller's own (127.x.y.z), so per-address windows of tests never meet. */
export const ownAddress = () => `127.${randomInt(1, 255)}.${randomInt(0, 256)}.${randomInt(1, 255)}`

export function call(method: string, path: string, options: CallOptions = {}): Promise<Reply> {
  const base = new URL(options.gateway ?? inject('gatewayUrl'))
  const payload = options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body))
  const headers: Record<string, string> = {
    host: options.host ?? 'localhost',
    ...(options.key ? { authorization: `Bearer ${options.key}` } : {}),
    ...(payload !== undefined
      ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) }
      : {}),
    ...(options.headers ?? {}),
  }
  return new Promise((resolve, reject) => {
    const req = request(
      {
        hostname: base.hostname,
        port: base.port,
        method,
        path,
        headers,
        agent: false,
        ...(options.localAddress ? { localAddress: options.localAddress } : {}),
      },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () => {
          const raw = Buffer.concat(chunks)
          const text = raw.toString('utf8')
          let body: unknown = undefined
          try {
            body = text ? JSON.parse(text) : undefined
          } catch {
            body = undefined
          }
          const reply = { status: res.statusCode ?? 0, headers: res.headers, text, raw, body }
          // Every answer of the API, from any gateway, must be one the OpenAPI document describes:
          // a drift fails the test that made the call.
          const violation = violationOf(method, path, reply)
          if (violation) reject(new Error(violation))
          else resolve(reply)
        })
      },
    )
    req.on('error', reject)
    if (payload !== undefined) req.write(payload)
    req.end()
  })
}

/** A client bound to one tenant's host and key. */
export function client(slug: string, key?: string) {
  const host = `${slug}.localhost`
  return {
    get: (path: string, o: CallOptions = {}) => call('GET', path, { host, key, ...o }),
    post: (path: string, body?: unknown, o: CallOptions = {}) =>
      call('POST', path, { host, key, body, ...o }),
    patch: (path: string, body?: unknown, o: CallOptions = {}) =>
      call('PATCH', path, { host, key, body, ...o }),
    delete: (path: string, body?: unknown, o: CallOptions = {}) =>
      call('DELETE', path, { host, key, body, ...o }),
    withKey: (other: string) => client(slug, other),
  }
}
