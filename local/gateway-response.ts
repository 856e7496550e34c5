/** Writes what a route group's Lambda returned (payload v2 result) as the HTTP response, as API Gateway does. */
import type { ServerResponse } from 'node:http'
import type { HttpResult } from '../shared/http/context.ts'

export function send(res: ServerResponse, result: HttpResult): void {
  const headers = { ...(result.headers ?? {}) }
  if (result.cookies?.length) res.setHeader('set-cookie', result.cookies)
  const body =
    result.body === undefined
      ? undefined
      : Buffer.from(result.body, result.isBase64Encoded ? 'base64' : 'utf8')
  res.writeHead(result.statusCode ?? 200, { ...headers, ...(body ? { 'content-length': body.length } : {}) })
  res.end(body)
}
