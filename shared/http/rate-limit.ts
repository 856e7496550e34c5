/**
 * Per-key fixed one-minute window (1,000 requests) and the tenant's monthly cap, each one atomic
 * conditional counter in DynamoDB. The X-RateLimit-* headers go on every authenticated response.
 * The minute window is counted first, before the route's scope is checked (a request refused for
 * its scope still counts against its key's minute); the month is counted last (metered-handle.ts),
 * so a request refused for its key, its scope or its minute never counts against the tenant's month.
 */
import { RateLimitedError } from '../domain/errors.ts'
import { consumeMinuteWindow } from '../store/tenants/rate-limits-store.ts'
import { established, type MiddyRequest } from './context.ts'

export const REQUESTS_PER_MINUTE = 1000
const WINDOW_SECONDS = 60

export function secondsToNextMonth(nowMs: number): number {
  const d = new Date(nowMs)
  const next = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1)
  return Math.max(1, Math.ceil((next - nowMs) / 1000))
}

export function minuteWindow() {
  return {
    before: async function minuteWindowBefore(request: MiddyRequest): Promise<void> {
      const state = request.context.lms
      const keyId = established(state.keyId, 'The API key')
      const nowSec = Math.floor(Date.now() / 1000)
      const windowStart = nowSec - (nowSec % WINDOW_SECONDS)
      const reset = windowStart + WINDOW_SECONDS
      const count = await consumeMinuteWindow(keyId, windowStart, REQUESTS_PER_MINUTE, reset + WINDOW_SECONDS)
      state.headers['x-ratelimit-limit'] = String(REQUESTS_PER_MINUTE)
      state.headers['x-ratelimit-remaining'] = String(count === undefined ? 0 : REQUESTS_PER_MINUTE - count)
      state.headers['x-ratelimit-reset'] = String(reset)
      if (count === undefined) throw new RateLimitedError('minute', Math.max(1, reset - nowSec))
    },
  }
}
