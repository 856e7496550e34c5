/** The reports' rounding: percentages and means to two decimals, a ratio over nothing is null. */

export const round2 = (n: number): number => Math.round(n * 100) / 100

/** `part` of `whole` in percent, two decimals; null when `whole` is 0 (no denominator, no rate). */
export function percentOf(part: number, whole: number): number | null {
  return whole === 0 ? null : round2((part * 100) / whole)
}

/** The mean of a sum over `count` values, two decimals; null when there is none. */
export function meanOf(sum: number, count: number): number | null {
  return count === 0 ? null : round2(sum / count)
}
