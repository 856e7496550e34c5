/**
 * Failed authentications per client address, over every keyed route (`failedAuthPerIp`). Counted
 * only after a key lookup failed, so a valid request never pays for the limit. An address whose
 * window is full is remembered by this container until the window ends and refused before
 * anything is read; a container that does not know yet learns it from the address's next failure
 * (the count's condition fails). The address is counted only as a keyed pseudonym, and every
 * counter expires with its window.
 */
import { pseudonym } from '../../crypto/secret-box.ts'
import { RateLimitedError } from '../../domain/errors.ts'
import { failedAuthPerIp } from '../../routes.ts'
import { consumeFailedAuthWindow } from '../../store/tenants/rate-limits-store.ts'
import { fixedWindow } from './rate-limits-service.ts'

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

/**
 * Refuses an address this container knows to be over its failed-authentication limit. No I/O.
 * @throws RateLimitedError ('authentication') until the address's window ends
 */
export function refuseKnownAddress(ip: string, nowMs: number): void {
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
 * client address. The failure that fills the window is still answered 401 by the caller; past it, 429.
 * @throws RateLimitedError ('authentication') when the address's window was already full
 */
export async function countFailedAuthentication(ip: string, nowMs: number): Promise<void> {
  const { limit, windowSeconds } = failedAuthPerIp
  const { start, reset } = fixedWindow(nowMs, windowSeconds)
  const count = await consumeFailedAuthWindow(await pseudonym(ip), start, limit, reset + windowSeconds)
  if (count !== undefined && count < limit) return
  refuseUntil(ip, reset * 1000, nowMs)
  if (count === undefined) {
    throw new RateLimitedError('authentication', Math.max(1, reset - Math.floor(nowMs / 1000)))
  }
}
