/**
 * The shared Middy stack of every route group. Order: request state and log line → per-address
 * limits (a keyless route's window; an address over its failed-authentication limit, refused
 * before anything is read) → tenant from Host → API key → plan's API access → rate limit and
 * monthly cap → scope → JSON body → handler;
 * the error envelope is registered last so its onError runs first.
 */
import middy from '@middy/core'
import { runWithDbMetrics } from '../store/metrics.ts'
import { apiKeyAuth } from './api-key-auth.ts'
import type { HttpEvent, HttpResult, LmsContext } from './context.ts'
import { errorEnvelope } from './error-envelope.ts'
import { ipRateLimit } from './ip-rate-limit.ts'
import { jsonBody } from './json-body.ts'
import { planEntitlements } from './plan-entitlements.ts'
import { rateLimit } from './rate-limit.ts'
import { requestLog } from './request-log.ts'
import { requireScope } from './require-scope.ts'
import type { RouteHandler } from './route.ts'
import { tenantFromHost } from './tenant-from-host.ts'
import { routeKey } from '../routes.ts'
import { NotFoundError } from '../domain/errors.ts'
import type { Context } from 'aws-lambda'

export type LambdaHandler = (event: HttpEvent, context: Context) => Promise<HttpResult>

export function httpStack(
  handlers: readonly RouteHandler[],
  fallback?: RouteHandler['handle'],
): LambdaHandler {
  const byKey = new Map(handlers.map((h) => [routeKey(h.def), h]))
  const dispatch = (event: HttpEvent, context: LmsContext): Promise<HttpResult> => {
    const handler = byKey.get(event.routeKey)
    if (handler) return handler.handle(event, context)
    if (fallback) return fallback(event, context)
    throw new NotFoundError('endpoint')
  }
  const stack = middy<HttpEvent, HttpResult, Error, LmsContext>()
    .use(requestLog())
    .use(ipRateLimit())
    .use(tenantFromHost())
    .use(apiKeyAuth())
    .use(planEntitlements())
    .use(rateLimit())
    .use(requireScope())
    .use(jsonBody())
    .use(errorEnvelope())
    .handler(dispatch)
  return (event, context) => runWithDbMetrics(() => stack(event, context as LmsContext)).done
}
