/**
 * Owners and admins hear when the month's API usage passes 80% and 100% of the monthly cap, once
 * per month and threshold. The monthly counter returns the count each request makes, so the
 * request whose count reaches a threshold is the one that records the alert: exactly one, at
 * once (document 000 checks every 15 minutes; this is never later than that).
 */
export const USAGE_ALERT_PERCENTS = [80, 100] as const

/** The threshold `count` reaches with this very request, if any. */
export function alertCrossedBy(
  count: number,
  cap: number | null,
): (typeof USAGE_ALERT_PERCENTS)[number] | undefined {
  if (cap === null || cap <= 0) return undefined
  return USAGE_ALERT_PERCENTS.find((percent) => count === Math.ceil((cap * percent) / 100))
}
