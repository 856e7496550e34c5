/**
 * Limits per client address. Keyless routes that create things (sign-up, contact) have a fixed
 * window per route, as in the route table, counted by one atomic conditional ADD. Keyed routes
 * count failed authentications (failedAuthPerIp): only after a key lookup failed, so a valid
 * request never pays for the limit; an address whose window is full is remembered by this
 * container until the window ends and refused before anything is read. A container that does not
 * know yet learns it from the address's next failure (the count's condition fails).
 * The address is stored only as a keyed pseudonym (secret-box), and every counter expires with its
 * window.
 */
import { pseudonym } from '../crypto/secret-box.ts'
import { RateLimitedError } from '../domain/errors.ts'
import { failedAuthPerIp, routeKey, type RouteDef } from '../routes.ts'
import { consumeFailedAuthWindow, consumeIpWindow } from '../store/tenants/rate-limits-store.ts'
import type { MiddyRequest } from './context.ts'

/** Window of `windowSeconds` that `nowMs` falls in: its start and end (Unix seconds). */
function fixedWindow(nowMs: number, windowSeconds: number): { start: number; reset: number } {
  const nowSec = Math.floor(nowMs / 1000)
  const start = nowSec - (nowSec % windowSeconds)
  return { start, reset: start + windowSeconds }
}

/**
 * Addresses over their failed-authentication limit, until their window ends (ms). Held in this
 * container's memory only, never stored or logged; bounded, so a flood of addresses cannot grow it
 * without limit (an address pushed out is learned again from its next failure).
 */
const refusedUntil = new Map<string, number>()
const MAX_REFUSED_ADDRESSES = 10_000

function refuseUntil(ip: string, untilMs: number, nowMs: number): void {
  if (refusedUntil.size >= MAX_REFUSED_ADDRESSES) {
    for (const [address, until] of refusedUntil) if (until <= nowMs) refusedUntil.delete(address)
  }
  if (refusedUntil.size >= MAX_REFUSED_ADDRESSES) {
    const oldest = refusedUntil.keys().next().value
    if (oldest !== undefined) refusedUntil.delete(oldest)
  }
  refusedUntil.set(ip, untilMs)
}

/** Refuses an address this container knows to be over its failed-authentication limit. No I/O. */
function refuseKnownAddress(ip: string, nowMs: number): void {
  const until = refusedUntil.get(ip)
  if (until === undefined) return
  if (until <= nowMs) {
    refusedUntil.delete(ip)
    return
  }
  throw new RateLimitedError('authentication', Math.max(1, Math.ceil((until - nowMs) / 1000)))
}

/**
 * Counts a failed authentication (a well-formed key the store did not know or refused) against the
 * client address. The failure that fills the window is still answered 401; past it, 429.
 */
export async function countFailedAuthentication(ip: string, nowMs = Date.now()): Promise<void> {
  const { limit, windowSeconds } = failedAuthPerIp
  const { start, reset } = fixedWindow(nowMs, windowSeconds)
  const count = await consumeFailedAuthWindow(await pseudonym(ip), start, limit, reset + windowSeconds)
  if (count !== undefined && count < limit) return
  refuseUntil(ip, reset * 1000, nowMs)
  if (count === undefined) {
    throw new RateLimitedError('authentication', Math.max(1, reset - Math.floor(nowMs / 1000)))
  }
}

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
      const nowMs = Date.now()
      const { start, reset } = fixedWindow(nowMs, limit.windowSeconds)
      const count = await consumeIpWindow(
        key,
        await pseudonym(ip),
        start,
        limit.limit,
        reset + limit.windowSeconds,
      )
      const nowSec = Math.floor(nowMs / 1000)
      state.headers['x-ratelimit-limit'] = String(limit.limit)
      state.headers['x-ratelimit-remaining'] = String(count === undefined ? 0 : limit.limit - count)
      state.headers['x-ratelimit-reset'] = String(reset)
      if (count === undefined) throw new RateLimitedError('address', Math.max(1, reset - nowSec))
    },
  }
}
