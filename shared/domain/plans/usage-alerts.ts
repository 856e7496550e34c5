/**
 * Owners and admins hear when the month's API usage passes 80% and 100% of the monthly cap, once
 * per month and threshold. A scheduled job (every 15 minutes, as document 000 says) compares the
 * month's count with the cap; the request path only counts.
 */
export const USAGE_ALERT_PERCENTS = [80, 100] as const
export type UsageAlertPercent = (typeof USAGE_ALERT_PERCENTS)[number]

/** The thresholds `used` has reached under `cap` (the 80% mark rounded up); none without a cap. */
export function thresholdsReached(used: number, cap: number | null): UsageAlertPercent[] {
  if (cap === null || cap <= 0) return []
  return USAGE_ALERT_PERCENTS.filter((percent) => used >= Math.ceil((cap * percent) / 100))
}
