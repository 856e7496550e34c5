/**
 * Per-key fixed one-minute window (1,000 requests) and the tenant's monthly cap, each one atomic
 * conditional counter in DynamoDB. The X-RateLimit-* headers go on every authenticated response.
 */
import { RateLimitedError } from '../domain/errors.ts'
import { meterApiRequest } from '../services/usage-service.ts'
import { consumeMinuteWindow } from '../store/rate-limits-store.ts'
import { established, type MiddyRequest } from './context.ts'

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
      const tenant = established(state.tenant, 'The tenant')
      const keyId = established(state.keyId, 'The API key')
      const nowMs = Date.now()
      const nowSec = Math.floor(nowMs / 1000)
      const windowStart = nowSec - (nowSec % WINDOW_SECONDS)
      const reset = windowStart + WINDOW_SECONDS
      const count = await consumeMinuteWindow(keyId, windowStart, REQUESTS_PER_MINUTE, reset + WINDOW_SECONDS)
      state.headers['x-ratelimit-limit'] = String(REQUESTS_PER_MINUTE)
      state.headers['x-ratelimit-remaining'] = String(count === undefined ? 0 : REQUESTS_PER_MINUTE - count)
      state.headers['x-ratelimit-reset'] = String(reset)
      if (count === undefined) throw new RateLimitedError('minute', Math.max(1, reset - nowSec))
      if (!(await meterApiRequest(tenant, nowMs))) {
        throw new RateLimitedError('monthly', secondsToNextMonth(nowMs))
      }
    },
  }
}
