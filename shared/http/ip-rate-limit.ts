/**
 * Limits per client address (shared/services/tenants/): keyless routes that create things
 * (sign-up, contact) have a fixed window per route, as in the route table; keyed routes refuse an
 * address this container knows to be over its failed-authentication limit before anything is
 * read (the failures themselves are counted by the key authentication).
 */
import { RateLimitedError } from '../domain/errors.ts'
import { routeKey, type RouteDef } from '../routes.ts'
import { refuseKnownAddress } from '../services/tenants/failed-authentications.ts'
import { countAddressRequest } from '../services/tenants/rate-limits-service.ts'
import type { MiddyRequest } from './context.ts'
import { rateLimitHeaders } from './rate-limit.ts'

/** Keyed routes: an address this container knows to be over its failed-authentication limit is refused first. */
export function refuseAddressOverFailedAuthLimit() {
  return {
    before: function refuseAddressBefore(request: MiddyRequest): void {
      refuseKnownAddress(request.event.requestContext.http.sourceIp, Date.now())
    },
  }
}

/** A keyless route open to abuse (route table `perIp`): its fixed window per client address. */
export function addressLimit(route: RouteDef, limit: NonNullable<RouteDef['perIp']>) {
  const key = routeKey(route)
  return {
    before: async function addressLimitBefore(request: MiddyRequest): Promise<void> {
      const state = request.context.lms
      // API Gateway's own view of the connection: a client cannot choose it (X-Forwarded-For is never read).
      const ip = request.event.requestContext.http.sourceIp
      const window = await countAddressRequest(key, ip, limit, Date.now())
      rateLimitHeaders(state.headers, window)
      if (window.retryAfter !== undefined) throw new RateLimitedError('address', window.retryAfter)
    },
  }
}
