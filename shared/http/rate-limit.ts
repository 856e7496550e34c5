/**
 * Per-key fixed one-minute window (1,000 requests) and the tenant's monthly cap, each one atomic
 * conditional counter in DynamoDB. The X-RateLimit-* headers go on every authenticated response.
 */
import { RateLimitedError } from '../domain/errors.ts'
import { monthlyApiCap } from '../domain/plans/entitlements.ts'
import { consumeMinuteWindow, consumeMonthlyUsage } from '../store/rate-limits-store.ts'
import type { MiddyRequest } from './context.ts'

export const REQUESTS_PER_MINUTE = 1000
const WINDOW_SECONDS = 60

export function secondsToNextMonth(nowMs: number): number {
  const d = new Date(nowMs)
  const next = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1)
  return Math.max(1, Math.ceil((next - nowMs) / 1000))
}

export function rateLimit() {
  return {
    before: async function rateLimitBefore(request: MiddyRequest): Promise<void> {
      const state = request.context.lms
      const { tenant, keyId } = state
      if (!tenant || !keyId) return
      const nowMs = Date.now()
      const nowSec = Math.floor(nowMs / 1000)
      const windowStart = nowSec - (nowSec % WINDOW_SECONDS)
      const reset = windowStart + WINDOW_SECONDS
      const count = await consumeMinuteWindow(keyId, windowStart, REQUESTS_PER_MINUTE, reset + WINDOW_SECONDS)
      state.headers['x-ratelimit-limit'] = String(REQUESTS_PER_MINUTE)
      state.headers['x-ratelimit-remaining'] = String(count === undefined ? 0 : REQUESTS_PER_MINUTE - count)
      state.headers['x-ratelimit-reset'] = String(reset)
      if (count === undefined) throw new RateLimitedError('minute', Math.max(1, reset - nowSec))
      const month = new Date(nowMs).toISOString().slice(0, 7)
      const used = await consumeMonthlyUsage(tenant, month, monthlyApiCap(tenant.plan, tenant.monthlyApiCap))
      if (used === undefined) throw new RateLimitedError('monthly', secondsToNextMonth(nowMs))
    },
  }
}
