/**
 * What every Middy stack shares, and nothing that reaches the store's clients: request state and
 * log line first, JSON body and the handler last, the error envelope registered last so its
 * onError runs first; and the dispatch of a route group's Lambda to its routes' stacks. The
 * public static routes' Lambdas (plans, docs) are built from this module alone (static-stack.ts),
 * so their bundles carry no DynamoDB client (docs/decisions/0013-request-path-cost.md).
 */
import middy from '@middy/core'
import type { Context } from 'aws-lambda'
import { NotFoundError, RequestTimedOutError } from '../domain/errors.ts'
import { routeKey } from '../routes.ts'
import { runWithDbMetrics } from '../store/core/metrics.ts'
import type { HttpEvent, HttpResult, LmsContext } from './context.ts'
import { errorEnvelope } from './error-envelope.ts'
import { jsonBody } from './json-body.ts'
import { requestLog } from './request-log.ts'
import type { RouteHandler } from './route.ts'

export type LambdaHandler = (event: HttpEvent, context: Context) => Promise<HttpResult>
export type Handle = RouteHandler['handle']
export type Middleware = middy.MiddlewareObj<HttpEvent, HttpResult, Error, LmsContext>
type Composed = (event: HttpEvent, context: LmsContext) => Promise<HttpResult>

export function stack(
  middlewares: readonly Middleware[],
  handle: Handle,
  body: Middleware = jsonBody(),
): Composed {
  // Out of time: a 503 the client may repeat (the default is an untyped error, answered 500).
  const m = middy<HttpEvent, HttpResult, Error, LmsContext>({
    timeoutEarlyResponse: () => {
      throw new RequestTimedOutError()
    },
  })
  for (const middleware of [requestLog(), ...middlewares, body, errorEnvelope()]) m.use(middleware)
  return m.handler(handle)
}

/** A route group's Lambda: each of its routes on the stack `stackOf` composes, anything else on the fallback's. */
export function dispatch(
  handlers: readonly RouteHandler[],
  stackOf: (handler: RouteHandler) => Composed,
  fallback?: Handle,
): LambdaHandler {
  const byKey = new Map(handlers.map((h) => [routeKey(h.def), stackOf(h)]))
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
