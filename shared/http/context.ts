import type { Request } from '@middy/core'
import type { Context } from 'aws-lambda'
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda'
import type { Actor } from '../domain/actor.ts'
import type { Tenant } from '../domain/tenants/tenant.ts'
import type { RouteDef } from '../routes.ts'
import type { WindowCount } from '../services/tenants/rate-limits-service.ts'

export type HttpEvent = APIGatewayProxyEventV2
export type HttpResult = APIGatewayProxyStructuredResultV2

/** What the middlewares learn about a request, for the ones after them and the handler. */
export interface RequestState {
  readonly requestId: string
  readonly startedAt: number
  /** The first request this Lambda container serves (its module load is in the request's time). */
  readonly coldStart: boolean
  route: RouteDef | undefined
  tenant: Tenant | undefined
  actor: Actor | undefined
  keyId: string | undefined
  /** The key's visible prefix (never the key). */
  keyPrefix: string | undefined
  /** The key's minute window as this request was counted in it, and when (rate-limit.ts). */
  minute: { readonly window: WindowCount; readonly atMs: number } | undefined
  /** The tenant's month count including this request, once metered (metered-handle.ts). */
  monthCount: number | undefined
  /** Headers every response of this request carries (rate limit, deprecation). */
  readonly headers: Record<string, string>
}

export interface LmsContext extends Context {
  lms: RequestState
}

export type MiddyRequest = Request<HttpEvent, HttpResult, Error, LmsContext>

/**
 * What an earlier middleware of the same stack must have set: missing, the stack is wired wrong
 * (a bug, answered 500), never a request to let through.
 */
export function established<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`${what} is not established: check the order of the stack`)
  return value
}
