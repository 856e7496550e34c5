/**
 * Per-key fixed one-minute window (1,000 requests) and the tenant's monthly cap, each one atomic
 * conditional counter in DynamoDB. The X-RateLimit-* headers go on every authenticated response.
 */
import { RateLimitedError } from '../domain/errors.ts'
import { monthlyApiCap } from '../domain/plans/entitlements.ts'
import { alertCrossedBy } from '../domain/plans/usage-alerts.ts'
import { newNotification } from '../domain/events.ts'
import { notificationPut } from '../store/outbox-items.ts'
import { consumeMinuteWindow, consumeMonthlyUsage, recordUsageAlert } from '../store/rate-limits-store.ts'
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
      const cap = monthlyApiCap(tenant.plan, tenant.monthlyApiCap)
      const used = await consumeMonthlyUsage(tenant, month, cap)
      if (used === undefined) throw new RateLimitedError('monthly', secondsToNextMonth(nowMs))
      const percent = alertCrossedBy(used, cap)
      if (percent !== undefined) {
        const at = new Date(nowMs).toISOString()
        const alert = newNotification('usage_alert', null, { month, percent, used, cap }, at)
        await recordUsageAlert(tenant, month, percent, notificationPut(tenant, alert))
      }
    },
  }
}
