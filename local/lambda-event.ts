/**
 * What API Gateway (HTTP API, payload v2) hands a Lambda, built for a request the local gateway
 * received or the benchmark makes up: one place knows the event's shape, routed by the route table.
 */
import { randomUUID } from 'node:crypto'
import type { Context } from 'aws-lambda'
import type { HttpEvent } from '../shared/http/context.ts'
import { fallbackGroup, matchRoute, routeKey, type RouteGroup } from '../shared/routes.ts'

export interface IncomingRequest {
  readonly method: string
  /** Path and query string (origin form, starting with `/`), e.g. `/api/v1/users?per_page=50`. */
  readonly url: string
  /** Names lowercased. */
  readonly headers: Record<string, string>
  readonly body?: string
  readonly sourceIp: string
  readonly protocol: string
  /** `local` for the gateway, `bench` for the benchmark: shows in the event's apiId. */
  readonly apiId: string
}

export function httpEvent(req: IncomingRequest): { event: HttpEvent; group: RouteGroup } {
  // Prefixed, not resolved against a base: `//evil.example/x` stays a path, never becomes a host.
  const url = new URL(`http://local${req.url}`)
  const method = req.method.toUpperCase()
  const query: Record<string, string> = {}
  for (const [k, v] of url.searchParams) query[k] = k in query ? `${query[k]},${v}` : v
  const match = matchRoute(method, url.pathname)
  const key = match ? routeKey(match.def) : '$default'
  const host = (req.headers.host ?? 'localhost').replace(/:\d+$/, '')
  const now = new Date()
  const event: HttpEvent = {
    version: '2.0',
    routeKey: key,
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    headers: req.headers,
    ...(Object.keys(query).length ? { queryStringParameters: query } : {}),
    ...(match && Object.keys(match.pathParameters).length ? { pathParameters: match.pathParameters } : {}),
    requestContext: {
      accountId: '000000000000',
      apiId: req.apiId,
      domainName: host,
      domainPrefix: host.split('.')[0] ?? '',
      http: {
        method,
        path: url.pathname,
        protocol: req.protocol,
        sourceIp: req.sourceIp,
        userAgent: req.headers['user-agent'] ?? '',
      },
      requestId: randomUUID(),
      routeKey: key,
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
    isBase64Encoded: false,
    ...(req.body !== undefined && req.body !== '' ? { body: req.body } : {}),
  }
  return { event, group: match?.def.group ?? fallbackGroup }
}

export function lambdaContext(functionName: string, requestId: string, logStreamName = 'local'): Context {
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: '1024',
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName,
    getRemainingTimeInMillis: () => 29_000,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  }
}
