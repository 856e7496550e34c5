/**
 * A route handler: its key names a row of the route table (checked at cold start, so a handler
 * can never serve a route the gateway does not route), and its `run` gets what the middlewares
 * established.
 */
import type * as v from 'valibot'
import type { Actor } from '../domain/actor.ts'
import { NotFoundError } from '../domain/errors.ts'
import type { Tenant } from '../domain/tenants/tenant.ts'
import { parseOrThrow } from '../domain/validation.ts'
import { routeByKey, type RouteDef } from '../routes.ts'
import type { CountedRequest } from '../services/billing/usage-service.ts'
import { established, type HttpEvent, type HttpResult, type LmsContext } from './context.ts'

export interface PublicInput {
  readonly event: HttpEvent
  readonly query: Readonly<Record<string, string | undefined>>
  readonly path: Readonly<Record<string, string | undefined>>
  /** The parsed JSON body (undefined without one). */
  readonly body: unknown
}

export interface AuthedInput extends PublicInput {
  readonly tenant: Tenant
  readonly actor: Actor
  /** The key's id (never the key): who did it, for audit records. */
  readonly keyId: string
  /** This request's own counts; only a route with `readsOwnUsage` has them when it runs. */
  readonly counted: () => CountedRequest
}

export interface RouteHandler {
  readonly def: RouteDef
  handle(event: HttpEvent, context: LmsContext): Promise<HttpResult>
}

function defOf(key: string): RouteDef {
  const def = routeByKey(key)
  if (!def) throw new Error(`Route ${key} is not in the route table (shared/routes.ts)`)
  return def
}

const publicInput = (event: HttpEvent): PublicInput => ({
  event,
  query: event.queryStringParameters ?? {},
  path: event.pathParameters ?? {},
  body: event.body,
})

function countedRequest({ lms }: LmsContext): CountedRequest {
  return {
    key: { id: established(lms.keyId, 'The API key'), prefix: established(lms.keyPrefix, 'The key prefix') },
    minute: established(lms.minute, 'The minute window').window,
    atMs: established(lms.minute, 'The minute window').atMs,
    monthCount: established(lms.monthCount, 'The month count'),
  }
}

/** A key-authenticated route: served on the keyed stack (stack.ts), which establishes its tenant and key. */
export function route(key: string, run: (input: AuthedInput) => Promise<HttpResult>): RouteHandler {
  const def = defOf(key)
  if (def.scope === null) throw new Error(`Route ${key} is public: declare it with publicRoute`)
  return {
    def,
    handle: (event, context) => {
      const { tenant, actor, keyId } = context.lms
      return run({
        ...publicInput(event),
        tenant: established(tenant, 'The tenant'),
        actor: established(actor, 'The key holder'),
        keyId: established(keyId, 'The API key'),
        counted: () => countedRequest(context),
      })
    },
  }
}

/**
 * A route without an API key (plans catalog, sign-up, and later LTI and billing with their own
 * schemes): served on the public stack (stack.ts).
 */
export function publicRoute(key: string, run: (input: PublicInput) => Promise<HttpResult>): RouteHandler {
  const def = defOf(key)
  if (def.scope !== null) throw new Error(`Route ${key} needs a key: declare it with route`)
  return { def, handle: (event) => run(publicInput(event)) }
}

/** Path ids are UUIDs; anything else cannot name a resource, so it is simply not found. */
export function pathId(
  input: Pick<PublicInput, 'path'>,
  name: string,
  resource: string,
  schema: v.GenericSchema<string>,
): string {
  try {
    return parseOrThrow(schema, input.path[name])
  } catch {
    throw new NotFoundError(resource)
  }
}
