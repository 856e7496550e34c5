/** Small numeric helpers for the report. */

export function median(values: readonly number[]): number {
  return percentile(values, 50)
}

/** Nearest-rank percentile. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN
  const sorted = [...values].sort((a, b) => a - b)
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length))
  return sorted[rank - 1] ?? Number.NaN
}

export const round = (n: number, digits = 3): number => Math.round(n * 10 ** digits) / 10 ** digits

export async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const t = performance.now()
  const value = await fn()
  return { value, ms: performance.now() - t }
}
