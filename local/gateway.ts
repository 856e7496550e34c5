/**
 * The local API Gateway: turns HTTP requests into HTTP API (payload v2) events, matches them
 * against the route table as API Gateway does, and calls the very handler module of the route's
 * group (the `fallback` group for everything unmatched, like the $default route), within API
 * Gateway's limits on a request (request-limits.ts).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Context } from 'aws-lambda'
import type { RouteGroup } from '../shared/routes.ts'
import { runAs } from './iam/invocation.ts'
import { httpEvent, lambdaContext } from './lambda-event.ts'
import type { HttpEvent, HttpResult } from '../shared/http/context.ts'
import { errorResult } from '../shared/http/responses.ts'
import { send } from './gateway-response.ts'
import { PayloadTooLarge, payloadTooLarge, readBody, refusalOf, refuse } from './request-limits.ts'

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

export async function invoke(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const refusal = refusalOf(req)
  if (refusal) return refuse(req, res, refusal)
  try {
    const { event, group } = toEvent(req, await readBody(req))
    const handler = await handlerFor(group)
    // As the route group's function: its AWS calls are checked against that function's grants.
    const context = lambdaContext(`lms-${group}`, event.requestContext.requestId)
    send(res, await runAs(group, () => handler(event, context)))
  } catch (err) {
    if (err instanceof PayloadTooLarge) return refuse(req, res, payloadTooLarge())
    // What API Gateway answers when the integration itself fails.
    send(res, errorResult(500, 'Internal server error'))
  }
}

/** `Expect: 100-continue`: a request refused on its headers gets its answer instead of a go-ahead. */
function checkContinue(req: IncomingMessage, res: ServerResponse): void {
  const refusal = refusalOf(req)
  if (refusal) return refuse(req, res, refusal)
  res.writeContinue()
  void invoke(req, res)
}

export function startGateway(port: number, host = '127.0.0.1'): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => void invoke(req, res))
  server.on('checkContinue', checkContinue)
  server.keepAliveTimeout = 5000
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => {
      const { port: bound } = server.address() as AddressInfo
      resolve({ server, url: `http://${host}:${bound}` })
    })
  })
}
