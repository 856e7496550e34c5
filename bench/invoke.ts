/**
 * In-process Lambda invocations: an API Gateway HTTP API (payload v2) event built as the local
 * gateway builds one (local/lambda-event.ts), handed to a handler module's `handler` inside a
 * runWithDbMetrics scope, so every DynamoDB call of the request is recorded here.
 */
import type { Context } from 'aws-lambda'
import type { HttpEvent, HttpResult } from '../shared/http/context.ts'
import { httpEvent, lambdaContext as localLambdaContext } from '../local/lambda-event.ts'
import { runWithDbMetrics, type DbCall } from '../shared/store/core/metrics.ts'

export type LambdaHandler = (event: HttpEvent, context: Context) => Promise<HttpResult>

export interface ApiRequest {
  readonly method: string
  /** Path with an optional query string, e.g. `/api/v1/users?per_page=50`. */
  readonly url: string
  readonly host: string
  readonly apiKey?: string
  /** Sent as a JSON body (POST, PATCH). */
  readonly body?: unknown
  /** More request headers (lower-case names, as the gateway gives them). */
  readonly headers?: Readonly<Record<string, string>>
}

export function apiEvent(req: ApiRequest): HttpEvent {
  const headers: Record<string, string> = { host: req.host, 'user-agent': 'lms-bench' }
  if (req.apiKey) headers.authorization = `Bearer ${req.apiKey}`
  if (req.body !== undefined) headers['content-type'] = 'application/json'
  Object.assign(headers, req.headers)
  return httpEvent({
    method: req.method,
    url: req.url,
    headers,
    body: req.body === undefined ? undefined : JSON.stringify(req.body),
    sourceIp: '127.0.0.1',
    protocol: 'HTTP/1.1',
    apiId: 'bench',
  }).event
}

export const lambdaContext = (functionName: string, requestId: string) =>
  localLambdaContext(functionName, requestId, 'bench')

export interface Invocation {
  readonly result: HttpResult
  readonly calls: readonly DbCall[]
  readonly ms: number
}

/**
 * One invocation of the handler, with the DynamoDB calls it made and its wall time. `remainingMs`
 * replaces the local context's 29 s (the stack answers 503 just before it runs out): for measuring a
 * request that DynamoDB Local serves more slowly than DynamoDB would.
 */
export async function invoke(
  handler: LambdaHandler,
  req: ApiRequest,
  remainingMs?: number,
): Promise<Invocation> {
  const event = apiEvent(req)
  const local = lambdaContext('lms-bench', event.requestContext.requestId)
  const context =
    remainingMs === undefined ? local : { ...local, getRemainingTimeInMillis: () => remainingMs }
  const t = performance.now()
  const { metrics, done } = runWithDbMetrics(() => handler(event, context))
  const result = await done
  return { result, calls: [...metrics.calls], ms: performance.now() - t }
}

export function envelopeOf(result: HttpResult): { data: unknown; meta: unknown; error: unknown } {
  return JSON.parse(result.body ?? 'null') as { data: unknown; meta: unknown; error: unknown }
}

/** The benchmark measures successful requests only: anything else means the setup is wrong. */
export function expectOk(req: ApiRequest, result: HttpResult): void {
  if (result.statusCode !== 200) {
    throw new Error(`${req.method} ${req.url} answered ${result.statusCode}: ${result.body ?? ''}`)
  }
}
