/**
 * In-process Lambda invocations: an API Gateway HTTP API (payload v2) event built the way
 * local/gateway.ts's toEvent builds one, handed to a handler module's `handler` inside a
 * runWithDbMetrics scope, so every DynamoDB call of the request is recorded here.
 */
import { randomUUID } from 'node:crypto'
import type { Context } from 'aws-lambda'
import type { HttpEvent, HttpResult } from '../shared/http/context.ts'
import { matchRoute, routeKey } from '../shared/routes.ts'
import { runWithDbMetrics, type DbCall } from '../shared/store/metrics.ts'

export type LambdaHandler = (event: HttpEvent, context: Context) => Promise<HttpResult>

export interface ApiRequest {
  readonly method: string
  /** Path with an optional query string, e.g. `/api/v1/users?per_page=50`. */
  readonly url: string
  readonly host: string
  readonly apiKey?: string
  /** Sent as a JSON body (POST, PATCH). */
  readonly body?: unknown
}

export function apiEvent(req: ApiRequest): HttpEvent {
  const url = new URL(req.url, 'http://local')
  const method = req.method.toUpperCase()
  const headers: Record<string, string> = { host: req.host, 'user-agent': 'lms-bench' }
  if (req.apiKey) headers.authorization = `Bearer ${req.apiKey}`
  if (req.body !== undefined) headers['content-type'] = 'application/json'
  const query: Record<string, string> = {}
  for (const [k, v] of url.searchParams) query[k] = k in query ? `${query[k]},${v}` : v
  const match = matchRoute(method, url.pathname)
  const key = match ? routeKey(match.def) : '$default'
  const now = new Date()
  const requestId = randomUUID()
  return {
    version: '2.0',
    routeKey: key,
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    headers,
    ...(req.body !== undefined ? { body: JSON.stringify(req.body) } : {}),
    ...(Object.keys(query).length ? { queryStringParameters: query } : {}),
    ...(match && Object.keys(match.pathParameters).length ? { pathParameters: match.pathParameters } : {}),
    requestContext: {
      accountId: '000000000000',
      apiId: 'bench',
      domainName: req.host,
      domainPrefix: req.host.split('.')[0] ?? '',
      http: {
        method,
        path: url.pathname,
        protocol: 'HTTP/1.1',
        sourceIp: '127.0.0.1',
        userAgent: 'lms-bench',
      },
      requestId,
      routeKey: key,
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
    isBase64Encoded: false,
  }
}

export function lambdaContext(functionName: string, requestId: string): Context {
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: '1024',
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'bench',
    getRemainingTimeInMillis: () => 29_000,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  }
}

export interface Invocation {
  readonly result: HttpResult
  readonly calls: readonly DbCall[]
  readonly ms: number
}

/** One invocation of the handler, with the DynamoDB calls it made and its wall time. */
export async function invoke(handler: LambdaHandler, req: ApiRequest): Promise<Invocation> {
  const event = apiEvent(req)
  const context = lambdaContext('lms-bench', event.requestContext.requestId)
  const t = performance.now()
  const { metrics, done } = runWithDbMetrics(() => handler(event, context))
  const result = await done
  return { result, calls: [...metrics.calls], ms: performance.now() - t }
}

/** The parsed `{data, meta, error}` body of a JSON answer. */
export function envelopeOf(result: HttpResult): { data: unknown; meta: unknown; error: unknown } {
  return JSON.parse(result.body ?? 'null') as { data: unknown; meta: unknown; error: unknown }
}

/** The benchmark measures successful requests only: anything else means the setup is wrong. */
export function expectOk(req: ApiRequest, result: HttpResult): void {
  if (result.statusCode !== 200) {
    throw new Error(`${req.method} ${req.url} answered ${result.statusCode}: ${result.body ?? ''}`)
  }
}
