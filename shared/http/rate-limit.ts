/**
 * The per-key minute window (shared/services/tenants/rate-limits-service.ts) and the X-RateLimit-*
 * headers that go on every authenticated response. The minute window is counted first, before the
 * route's scope is checked (a request refused for its scope still counts against its key's
 * minute); the tenant's month is counted last (metered-handle.ts), so a request refused for its
 * key, its scope or its minute never counts against the tenant's month. A keyed response also
 * carries the IETF draft's `RateLimit-Policy` and `RateLimit`, written here from the same count
 * (decision 0037); the window is kept on the request state for GET /api/v1/usage.
 */
import { RateLimitedError } from '../domain/errors.ts'
import { monthlyApiCap } from '../domain/plans/entitlements.ts'
import { rateLimitField, rateLimitPolicy } from '../domain/plans/rate-limit-fields.ts'
import type { Tenant } from '../domain/tenants/tenant.ts'
import { countKeyRequest, type WindowCount } from '../services/tenants/rate-limits-service.ts'
import { established, type MiddyRequest } from './context.ts'

export function secondsToNextMonth(nowMs: number): number {
  const d = new Date(nowMs)
  const next = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1)
  return Math.max(1, Math.ceil((next - nowMs) / 1000))
}

export function rateLimitHeaders(headers: Record<string, string>, window: WindowCount): void {
  headers['x-ratelimit-limit'] = String(window.limit)
  headers['x-ratelimit-remaining'] = String(window.remaining)
  headers['x-ratelimit-reset'] = String(window.reset)
}

/** The draft's fields for a key's minute, with the tenant's monthly cap in the policy. */
function keyedRateLimitHeaders(
  headers: Record<string, string>,
  window: WindowCount,
  tenant: Tenant,
  nowMs: number,
): void {
  rateLimitHeaders(headers, window)
  headers['ratelimit-policy'] = rateLimitPolicy(
    window.limit,
    monthlyApiCap(tenant.plan, tenant.monthlyApiCap),
    nowMs,
  )
  headers['ratelimit'] = rateLimitField(window.remaining, window.reset, nowMs)
}

export function minuteWindow() {
  return {
    before: async function minuteWindowBefore(request: MiddyRequest): Promise<void> {
      const state = request.context.lms
      const nowMs = Date.now()
      const window = await countKeyRequest(established(state.keyId, 'The API key'), nowMs)
      state.minute = { window, atMs: nowMs }
      keyedRateLimitHeaders(state.headers, window, established(state.tenant, 'The tenant'), nowMs)
      if (window.retryAfter !== undefined) throw new RateLimitedError('minute', window.retryAfter)
    },
  }
}
