/**
 * The Middy stacks. Each route gets the stack of its kind, composed for it once at cold start, so
 * no middleware has to ask whether it applies:
 * - keyed routes: request state and log line → an address over its failed-authentication limit,
 *   refused before anything is read → tenant from Host → API key → plan's API access → the key's
 *   minute window → the route's scope → JSON body → the monthly cap, counted while a GET's
 *   handler already reads (metered-handle.ts) → on a POST, its Idempotency-Key (idempotent-handle.ts)
 *   → handler;
 * - public routes: request state and log line → the route's window per client address (when the
 *   route table sets one) → JSON body → handler (routes that read and count nothing: static-stack.ts);
 * - requests that match no route: request state and log line → JSON body → the fallback.
 * In each, the error envelope is registered last so its onError runs first (base-stack.ts).
 */
import { routeKey, type RouteDef } from '../routes.ts'
import { apiKeyAuth } from './api-key-auth.ts'
import { dispatch, stack, type Handle, type LambdaHandler } from './base-stack.ts'
import { addressLimit, refuseAddressOverFailedAuthLimit } from './ip-rate-limit.ts'
import { formBody } from './form-body.ts'
import { idempotentHandle } from './idempotent-handle.ts'
import { jsonBody } from './json-body.ts'
import { meteredHandle } from './metered-handle.ts'
import { planEntitlements } from './plan-entitlements.ts'
import { minuteWindow } from './rate-limit.ts'
import { requireScope } from './require-scope.ts'
import type { RouteHandler } from './route.ts'
import { tenantFromHost } from './tenant-from-host.ts'

export type { LambdaHandler } from './base-stack.ts'

export function keyedStack(def: RouteDef, handle: Handle) {
  if (def.scope === null) throw new Error(`Route ${routeKey(def)} is public: it has no keyed stack`)
  return stack(
    [
      refuseAddressOverFailedAuthLimit(),
      tenantFromHost(),
      apiKeyAuth(),
      planEntitlements(),
      minuteWindow(),
      requireScope(def.scope),
    ],
    meteredHandle(def, def.method === 'POST' ? idempotentHandle(handle) : handle),
  )
}

export function publicStack(def: RouteDef, handle: Handle) {
  if (def.scope !== null) throw new Error(`Route ${routeKey(def)} needs a key: it has no public stack`)
  return stack(def.perIp ? [addressLimit(def, def.perIp)] : [], handle, def.form ? formBody() : jsonBody())
}

/** A route group's Lambda: each of its routes on its own stack, anything else on the fallback's. */
export function httpStack(handlers: readonly RouteHandler[], fallback?: Handle): LambdaHandler {
  return dispatch(
    handlers,
    (h) => (h.def.scope === null ? publicStack(h.def, h.handle) : keyedStack(h.def, h.handle)),
    fallback,
  )
}
