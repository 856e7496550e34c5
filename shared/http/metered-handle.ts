/**
 * The tenant's monthly cap, counted last: after the key, the plan's API access, the key's minute
 * window and the route's scope, so a request refused for any of those never counts against the
 * month. On a GET the route's handler runs while the month is counted (its reads change nothing),
 * so a warm authenticated read waits for three DynamoDB round trips, not four: key, minute window,
 * then month and the handler's read together. The answer waits for both; a capped month wins (429)
 * and what the handler read is discarded. Writes run only once the month admitted them, so a
 * refused request never changes data; so does GET /api/v1/usage (`readsOwnUsage`), whose answer
 * includes its own request's count, kept on the request state.
 */
import { RateLimitedError } from '../domain/errors.ts'
import type { Tenant } from '../domain/tenants/tenant.ts'
import type { RouteDef } from '../routes.ts'
import { meterApiRequest } from '../services/billing/usage-service.ts'
import { established, type HttpEvent, type HttpResult, type LmsContext } from './context.ts'
import { secondsToNextMonth } from './rate-limit.ts'

type Handle = (event: HttpEvent, context: LmsContext) => Promise<HttpResult>

/**
 * Tenants this container saw capped, by id, with the month: their next requests in that month
 * are metered before the handler runs, so a capped tenant's reads are not paid for only to be
 * discarded. A hint for the order of work, never for admission: the counter decides every time.
 */
const cappedMonths = new Map<string, string>()
const MAX_REMEMBERED = 10_000

async function admitToMonth(context: LmsContext, tenant: Tenant, nowMs: number): Promise<void> {
  const count = await meterApiRequest(tenant, nowMs)
  if (count !== undefined) {
    context.lms.monthCount = count
    cappedMonths.delete(tenant.id)
    return
  }
  if (cappedMonths.size >= MAX_REMEMBERED) cappedMonths.clear()
  cappedMonths.set(tenant.id, monthOf(nowMs))
  throw new RateLimitedError('monthly', secondsToNextMonth(nowMs))
}

const monthOf = (nowMs: number) => new Date(nowMs).toISOString().slice(0, 7)

export function meteredHandle(def: RouteDef, handle: Handle): Handle {
  const alongside = def.method === 'GET' && def.readsOwnUsage !== true
  return async (event, context) => {
    const tenant = established(context.lms.tenant, 'The tenant')
    const nowMs = Date.now()
    if (!alongside || cappedMonths.get(tenant.id) === monthOf(nowMs)) {
      await admitToMonth(context, tenant, nowMs)
      return handle(event, context)
    }
    const [admitted, answer] = await Promise.allSettled([
      admitToMonth(context, tenant, nowMs),
      handle(event, context),
    ])
    if (admitted.status === 'rejected') throw admitted.reason
    if (answer.status === 'rejected') throw answer.reason
    return answer.value
  }
}
