/**
 * Fixed-window limits: a key's minute (1,000 requests) and a client address's window on a keyless
 * route (the route table's `perIp`). Each request is one atomic conditional counter in DynamoDB
 * (rate-limits-store.ts), so no read-then-write race can admit a request past the limit. The
 * address is counted only as a keyed pseudonym (secret-box), never in clear.
 */
import { pseudonym } from '../../crypto/secret-box.ts'
import type { RouteDef } from '../../routes.ts'
import { consumeIpWindow, consumeMinuteWindow } from '../../store/tenants/rate-limits-store.ts'

export const REQUESTS_PER_MINUTE = 1000
const MINUTE_SECONDS = 60

/** A counted window as the X-RateLimit-* headers tell it. */
export interface WindowCount {
  readonly limit: number
  readonly remaining: number
  /** When the window ends (Unix seconds). */
  readonly reset: number
  /** Set when this request is over the limit: seconds until the window ends, at least 1. */
  readonly retryAfter: number | undefined
}

/** Window of `windowSeconds` that `nowMs` falls in: its start and end (Unix seconds). */
export function fixedWindow(nowMs: number, windowSeconds: number): { start: number; reset: number } {
  const nowSec = Math.floor(nowMs / 1000)
  const start = nowSec - (nowSec % windowSeconds)
  return { start, reset: start + windowSeconds }
}

function windowCount(count: number | undefined, limit: number, reset: number, nowMs: number): WindowCount {
  return {
    limit,
    remaining: count === undefined ? 0 : limit - count,
    reset,
    retryAfter: count === undefined ? Math.max(1, reset - Math.floor(nowMs / 1000)) : undefined,
  }
}

/**
 * Counts one request of an API key in its minute. Every request of a window carries the same
 * expiry (the window's end plus its length).
 * @example const { retryAfter } = await countKeyRequest(keyId, Date.now()) // set: answer 429
 */
export async function countKeyRequest(keyId: string, nowMs: number): Promise<WindowCount> {
  const { start, reset } = fixedWindow(nowMs, MINUTE_SECONDS)
  const count = await consumeMinuteWindow(keyId, start, REQUESTS_PER_MINUTE, reset + MINUTE_SECONDS)
  return windowCount(count, REQUESTS_PER_MINUTE, reset, nowMs)
}

/** Counts one request from a client address on a keyless route (`routeKey`) in its window. */
export async function countAddressRequest(
  routeKey: string,
  clientAddress: string,
  limit: NonNullable<RouteDef['perIp']>,
  nowMs: number,
): Promise<WindowCount> {
  const { start, reset } = fixedWindow(nowMs, limit.windowSeconds)
  const count = await consumeIpWindow(
    routeKey,
    await pseudonym(clientAddress),
    start,
    limit.limit,
    reset + limit.windowSeconds,
  )
  return windowCount(count, limit.limit, reset, nowMs)
}
