/**
 * The IETF draft's structured rate-limit fields (draft-ietf-httpapi-ratelimit-headers) and the
 * period the tenant's monthly cap counts in. The month counter is keyed by the calendar month (UTC)
 * of the request (shared/services/billing/usage-service.ts), so that month is the period the
 * policy and GET /api/v1/usage announce, not the billing cycle.
 */

/** The calendar month (UTC) of `nowMs`: its first instant, the next month's first, and its length. */
export function calendarMonth(nowMs: number): { start: string; end: string; seconds: number } {
  const d = new Date(nowMs)
  const start = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1)
  const end = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1)
  return {
    start: new Date(start).toISOString(),
    end: new Date(end).toISOString(),
    seconds: (end - start) / 1000,
  }
}

/** `RateLimit-Policy`: the minute's quota, and the month's when the tenant has a cap. */
export function rateLimitPolicy(minuteLimit: number, monthlyCap: number | null, nowMs: number): string {
  const minute = `"minute";q=${minuteLimit};w=60`
  if (monthlyCap === null) return minute
  return `${minute}, "month";q=${monthlyCap};w=${calendarMonth(nowMs).seconds}`
}

/** Seconds from `nowMs` until a window ending at `resetEpoch` (Unix seconds) ends; never negative. */
export const secondsToReset = (resetEpoch: number, nowMs: number): number =>
  Math.max(0, resetEpoch - Math.floor(nowMs / 1000))

/** `RateLimit`: what is left of the minute and the seconds until it ends. */
export function rateLimitField(remaining: number, resetEpoch: number, nowMs: number): string {
  return `"minute";r=${remaining};t=${secondsToReset(resetEpoch, nowMs)}`
}
