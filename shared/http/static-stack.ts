/**
 * The Lambda of a group of public routes that read and count nothing (no key, no window per
 * client address): the plans catalog, the API description, the fallback for requests that match
 * no route. Built from base-stack.ts alone, so nothing of the keyed stack, the store or the AWS
 * SDK is bundled with it.
 */
import { routeKey } from '../routes.ts'
import { dispatch, stack, type Handle, type LambdaHandler } from './base-stack.ts'
import type { RouteHandler } from './route.ts'

export function staticHttpStack(handlers: readonly RouteHandler[], fallback?: Handle): LambdaHandler {
  for (const { def } of handlers) {
    if (def.scope !== null || def.perIp)
      throw new Error(`Route ${routeKey(def)} needs a key or a window: serve it with httpStack (stack.ts)`)
  }
  return dispatch(handlers, (h) => stack([], h.handle), fallback)
}
