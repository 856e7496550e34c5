/**
 * The local API Gateway: turns HTTP requests into HTTP API (payload v2) events, matches them
 * against the route table as API Gateway does, and calls the very handler module of the route's
 * group (the `fallback` group for everything unmatched, like the $default route).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Context } from 'aws-lambda'
import type { RouteGroup } from '../shared/routes.ts'
import { httpEvent, lambdaContext } from './lambda-event.ts'
import type { HttpEvent, HttpResult } from '../shared/http/context.ts'

type Handler = (event: HttpEvent, context: Context) => Promise<HttpResult>

const handlers = new Map<RouteGroup, Promise<Handler>>()

/** Imported on first use, as a cold start would; then reused, as a warm container is. */
function handlerFor(group: RouteGroup): Promise<Handler> {
  let h = handlers.get(group)
  if (!h) {
    h = import(`../functions/${group}/handler.ts`).then((m: { handler: Handler }) => m.handler)
    handlers.set(group, h)
  }
  return h
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => resolve(Buffer.concat(chunks)))
    req.on('error', reject)
  })
}

/** The request as API Gateway would hand it to the route group's Lambda. */
function toEvent(req: IncomingMessage, body: Buffer) {
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue
    headers[name.toLowerCase()] = Array.isArray(value) ? value.join(',') : value
  }
  return httpEvent({
    method: req.method ?? 'GET',
    url: req.url ?? '/',
    headers,
    body: body.length ? body.toString('utf8') : undefined,
    sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
    protocol: `HTTP/${req.httpVersion}`,
    apiId: 'local',
  })
}

function send(res: ServerResponse, result: HttpResult): void {
  const headers = { ...(result.headers ?? {}) }
  if (result.cookies?.length) res.setHeader('set-cookie', result.cookies)
  const body =
    result.body === undefined
      ? undefined
      : Buffer.from(result.body, result.isBase64Encoded ? 'base64' : 'utf8')
  res.writeHead(result.statusCode ?? 200, { ...headers, ...(body ? { 'content-length': body.length } : {}) })
  res.end(body)
}

export async function invoke(req: IncomingMessage, res: ServerResponse): Promise<void> {
  try {
    const { event, group } = toEvent(req, await readBody(req))
    const handler = await handlerFor(group)
    send(res, await handler(event, lambdaContext(`lms-${group}`, event.requestContext.requestId)))
  } catch {
    // What API Gateway answers when the integration itself fails.
    send(res, {
      statusCode: 500,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        data: null,
        meta: null,
        error: { code: 500, message: 'Internal server error' },
      }),
    })
  }
}

export function startGateway(port: number, host = '127.0.0.1'): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => void invoke(req, res))
  server.keepAliveTimeout = 5000
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => {
      const { port: bound } = server.address() as AddressInfo
      resolve({ server, url: `http://${host}:${bound}` })
    })
  })
}
