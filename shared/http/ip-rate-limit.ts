/**
 * Keyless routes that create things (sign-up, contact) are limited per client address: a fixed
 * window per route, as in the route table, counted by one atomic conditional ADD. The address is
 * stored only as a keyed pseudonym (secret-box), and the counter expires with its window.
 */
import { pseudonym } from '../crypto/secret-box.ts'
import { RateLimitedError } from '../domain/errors.ts'
import { routeKey } from '../routes.ts'
import { consumeIpWindow } from '../store/rate-limits-store.ts'
import type { MiddyRequest } from './context.ts'

export function ipRateLimit() {
  return {
    before: async function ipRateLimitBefore(request: MiddyRequest): Promise<void> {
      const state = request.context.lms
      const limit = state.route?.perIp
      if (!state.route || !limit) return
      // API Gateway's own view of the connection: a client cannot choose it (X-Forwarded-For is never read).
      const ip = request.event.requestContext.http.sourceIp
      const nowSec = Math.floor(Date.now() / 1000)
      const windowStart = nowSec - (nowSec % limit.windowSeconds)
      const reset = windowStart + limit.windowSeconds
      const count = await consumeIpWindow(
        routeKey(state.route),
        await pseudonym(ip),
        windowStart,
        limit.limit,
        reset + limit.windowSeconds,
      )
      state.headers['x-ratelimit-limit'] = String(limit.limit)
      state.headers['x-ratelimit-remaining'] = String(count === undefined ? 0 : limit.limit - count)
      state.headers['x-ratelimit-reset'] = String(reset)
      if (count === undefined) throw new RateLimitedError('address', Math.max(1, reset - nowSec))
    },
  }
}
