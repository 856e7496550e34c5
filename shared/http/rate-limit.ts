/**
 * The per-key minute window (shared/services/tenants/rate-limits-service.ts) and the X-RateLimit-*
 * headers that go on every authenticated response. The minute window is counted first, before the
 * route's scope is checked (a request refused for its scope still counts against its key's
 * minute); the tenant's month is counted last (metered-handle.ts), so a request refused for its
 * key, its scope or its minute never counts against the tenant's month.
 */
import { RateLimitedError } from '../domain/errors.ts'
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

export function minuteWindow() {
  return {
    before: async function minuteWindowBefore(request: MiddyRequest): Promise<void> {
      const state = request.context.lms
      const window = await countKeyRequest(established(state.keyId, 'The API key'), Date.now())
      rateLimitHeaders(state.headers, window)
      if (window.retryAfter !== undefined) throw new RateLimitedError('minute', window.retryAfter)
    },
  }
}
