/**
 * How the events API counts a range without reading its events (decision 0053): catalog events are
 * counted per UTC day, hour and minute of their time (buckets, labelled by the ISO prefix: `D#2026-11-27`,
 * `H#2026-11-27T21`, `M#2026-11-27T21:14`). A range is the whole buckets it covers, biggest first,
 * plus the two partial minutes at its edges, counted from the events themselves.
 */

export type Granularity = 'D' | 'H' | 'M'

const PREFIX: Record<Granularity, number> = { D: 10, H: 13, M: 16 }
const MINUTE = 60_000
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR

/** The bucket labels an event of this time is counted in: its day, hour and minute. */
export function bucketsOf(createdAt: string): string[] {
  return (['D', 'H', 'M'] as const).map((g) => label(g, Date.parse(createdAt)))
}

const label = (g: Granularity, ms: number): string => `${g}#${new Date(ms).toISOString().slice(0, PREFIX[g])}`

/** The instant a bucket starts at (`M#2026-11-27T21:14` → 2026-11-27T21:14:00.000Z). */
export function bucketStart(bucket: string): number {
  const iso = bucket.slice(2)
  return Date.parse(iso.length === 10 ? `${iso}T00:00:00.000Z` : iso.length === 13 ? `${iso}:00Z` : `${iso}Z`)
}

/** Whole buckets of one granularity, `from` to `to` inclusive; `to` undefined: every later one. */
export interface BucketRun {
  readonly from: string
  readonly to?: string
}

/** An exclusive range of event times, counted from the events themselves. */
export interface PartialRange {
  readonly after: string
  readonly before?: string
}

export interface CountPlan {
  readonly runs: readonly BucketRun[]
  readonly partials: readonly PartialRange[]
}

const floorTo = (ms: number, unit: number) => Math.floor(ms / unit) * unit
const ceilTo = (ms: number, unit: number) => Math.ceil(ms / unit) * unit
const iso = (ms: number) => new Date(ms).toISOString()

/** Whole buckets of `g` in [from, to) (both aligned to it): none when empty. */
function run(g: Granularity, unit: number, from: number, to: number): BucketRun[] {
  if (to <= from) return []
  return [{ from: label(g, from), ...(to === Infinity ? {} : { to: label(g, to - unit) }) }]
}

/**
 * The plan for the events strictly after `after` and strictly before `before` (none: no upper
 * bound), canonical ISO instants with milliseconds. The partial minutes are the one `after` falls
 * in (from just after it) and the one `before` falls in (up to just before it); between them, whole
 * minutes up to the first whole hour, whole hours up to the first whole day, whole days, and back
 * down to the upper edge.
 */
export function countPlan(after: string, before?: string): CountPlan {
  const a = Date.parse(after)
  const b = before === undefined ? Infinity : Date.parse(before)
  const start = floorTo(a, MINUTE) + MINUTE
  if (b <= start) return { runs: [], partials: [{ after, ...(before === undefined ? {} : { before }) }] }
  const end = b === Infinity ? Infinity : floorTo(b, MINUTE)
  const partials: PartialRange[] = [{ after, before: iso(start) }]
  // From the upper edge's minute on, inclusive: just after the millisecond before it.
  if (end !== Infinity && end < b) partials.push({ after: iso(end - 1), before: before as string })
  const hourUp = Math.min(ceilTo(start, HOUR), end)
  const hourDown = Math.max(end === Infinity ? Infinity : floorTo(end, HOUR), hourUp)
  const dayUp = Math.min(ceilTo(hourUp, DAY), hourDown)
  const dayDown = Math.max(hourDown === Infinity ? Infinity : floorTo(hourDown, DAY), dayUp)
  const runs = [
    ...run('D', DAY, dayUp, dayDown),
    ...run('H', HOUR, hourUp, dayUp),
    ...run('H', HOUR, dayDown, hourDown),
    ...run('M', MINUTE, start, hourUp),
    ...run('M', MINUTE, hourDown, end),
  ]
  return { runs, partials }
}
