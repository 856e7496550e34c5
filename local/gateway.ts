/**
 * The local API Gateway: turns HTTP requests into HTTP API (payload v2) events, matches them
 * against the route table as API Gateway does, and calls the very handler module of the route's
 * group (the `fallback` group for everything unmatched, like the $default route).
 */
import { randomUUID } from 'node:crypto'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Context } from 'aws-lambda'
import { fallbackGroup, matchRoute, routeKey, type RouteGroup } from '../shared/routes.ts'
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

function lambdaContext(group: RouteGroup, requestId: string): Context {
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: `lms-${group}`,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:lms-${group}`,
    memoryLimitInMB: '1024',
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/lms-${group}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => 29_000,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  }
}

export function toEvent(req: IncomingMessage, body: Buffer): { event: HttpEvent; group: RouteGroup } {
  const url = new URL(req.url ?? '/', 'http://local')
  const method = (req.method ?? 'GET').toUpperCase()
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue
    headers[name.toLowerCase()] = Array.isArray(value) ? value.join(',') : value
  }
  const query: Record<string, string> = {}
  for (const [k, v] of url.searchParams) query[k] = k in query ? `${query[k]},${v}` : v
  const match = matchRoute(method, url.pathname)
  const now = new Date()
  const requestId = randomUUID()
  const key = match ? routeKey(match.def) : '$default'
  const event: HttpEvent = {
    version: '2.0',
    routeKey: key,
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    headers,
    ...(Object.keys(query).length ? { queryStringParameters: query } : {}),
    ...(match && Object.keys(match.pathParameters).length ? { pathParameters: match.pathParameters } : {}),
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      domainName: (headers.host ?? 'localhost').replace(/:\d+$/, ''),
      domainPrefix: (headers.host ?? 'localhost').split('.')[0] ?? '',
      http: {
        method,
        path: url.pathname,
        protocol: `HTTP/${req.httpVersion}`,
        sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId,
      routeKey: key,
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
    isBase64Encoded: false,
    ...(body.length ? { body: body.toString('utf8') } : {}),
  }
  return { event, group: match?.def.group ?? fallbackGroup }
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
    send(res, await handler(event, lambdaContext(group, event.requestContext.requestId)))
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
