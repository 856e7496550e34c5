/**
 * The Middy stacks. Each route gets the stack of its kind, composed for it once at cold start, so
 * no middleware has to ask whether it applies:
 * - keyed routes: request state and log line → an address over its failed-authentication limit,
 *   refused before anything is read → tenant from Host → API key → plan's API access → rate limit
 *   and monthly cap → the route's scope → JSON body → handler;
 * - public routes: request state and log line → the route's window per client address (when the
 *   route table sets one) → JSON body → handler;
 * - requests that match no route: request state and log line → JSON body → the fallback.
 * In each, the error envelope is registered last so its onError runs first.
 */
import middy from '@middy/core'
import type { Context } from 'aws-lambda'
import { NotFoundError } from '../domain/errors.ts'
import { routeKey, type RouteDef } from '../routes.ts'
import { runWithDbMetrics } from '../store/metrics.ts'
import { apiKeyAuth } from './api-key-auth.ts'
import type { HttpEvent, HttpResult, LmsContext } from './context.ts'
import { errorEnvelope } from './error-envelope.ts'
import { addressLimit, refuseAddressOverFailedAuthLimit } from './ip-rate-limit.ts'
import { formBody } from './form-body.ts'
import { jsonBody } from './json-body.ts'
import { planEntitlements } from './plan-entitlements.ts'
import { rateLimit } from './rate-limit.ts'
import { requestLog } from './request-log.ts'
import { requireScope } from './require-scope.ts'
import type { RouteHandler } from './route.ts'
import { tenantFromHost } from './tenant-from-host.ts'

export type LambdaHandler = (event: HttpEvent, context: Context) => Promise<HttpResult>
type Handle = RouteHandler['handle']
type Middleware = middy.MiddlewareObj<HttpEvent, HttpResult, Error, LmsContext>

function stack(middlewares: readonly Middleware[], handle: Handle, body: Middleware = jsonBody()) {
  const m = middy<HttpEvent, HttpResult, Error, LmsContext>()
  for (const middleware of [requestLog(), ...middlewares, body, errorEnvelope()]) m.use(middleware)
  return m.handler(handle)
}

export function keyedStack(def: RouteDef, handle: Handle) {
  if (def.scope === null) throw new Error(`Route ${routeKey(def)} is public: it has no keyed stack`)
  return stack(
    [
      refuseAddressOverFailedAuthLimit(),
      tenantFromHost(),
      apiKeyAuth(),
      planEntitlements(),
      rateLimit(),
      requireScope(def.scope),
    ],
    handle,
  )
}

export function publicStack(def: RouteDef, handle: Handle) {
  if (def.scope !== null) throw new Error(`Route ${routeKey(def)} needs a key: it has no public stack`)
  return stack(def.perIp ? [addressLimit(def, def.perIp)] : [], handle, def.form ? formBody() : jsonBody())
}

/** A route group's Lambda: each of its routes on its own stack, anything else on the fallback's. */
export function httpStack(handlers: readonly RouteHandler[], fallback?: Handle): LambdaHandler {
  const byKey = new Map(
    handlers.map((h) => [
      routeKey(h.def),
      h.def.scope === null ? publicStack(h.def, h.handle) : keyedStack(h.def, h.handle),
    ]),
  )
  const unrouted = stack(
    [],
    fallback ??
      (() => {
        throw new NotFoundError('endpoint')
      }),
  )
  return (event, context) =>
    runWithDbMetrics(() => (byKey.get(event.routeKey) ?? unrouted)(event, context as LmsContext)).done
}
