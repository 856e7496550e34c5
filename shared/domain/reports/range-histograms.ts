/**
 * The date-range totals of the enrollments and completions reports (decision 0026): every
 * enrollment counts in the UTC hour of its enrolled_at under its status, every completion in the
 * hour of its completed_at under its pass/fail. A range (`_after`, `_before`, both exclusive) is
 * then its whole hours summed from the histogram and at most two parts of an hour counted exactly.
 */
import type { Enrollment, EnrollmentWrite } from '../enrollments/enrollment.ts'

const HOUR_MS = 3_600_000

/** The histogram's two kinds: enrollments by enrollment hour, completions by completion hour. */
export type RangeKind = 'enrolled' | 'completed'

/** `day → attribute → delta`, attribute `h<hh>_<bucket>`. */
export type HourDeltas = Map<string, Record<string, number>>

const hourAttribute = (ms: number, bucket: string) => `h${new Date(ms).toISOString().slice(11, 13)}_${bucket}`
const dayKey = (ms: number) => new Date(ms).toISOString().slice(0, 10)

/** Where an enrollment counts: its enrollment hour and status, its completion hour and pass/fail. */
function placeOf(kind: RangeKind, e: Enrollment): { ms: number; bucket: string } | undefined {
  const at = kind === 'enrolled' ? e.enrolledAt : e.completedAt
  if (at === null) return undefined
  const ms = Date.parse(at)
  if (!Number.isFinite(ms)) return undefined
  return { ms, bucket: kind === 'enrolled' ? e.status : (e.passFail ?? 'none') }
}

/** How writes (before → after) move one histogram: the old place loses one, the new gains one. */
export function hourDeltas(kind: RangeKind, writes: readonly EnrollmentWrite[]): HourDeltas {
  const out: HourDeltas = new Map()
  const move = (e: Enrollment | undefined, sign: 1 | -1) => {
    const place = e && placeOf(kind, e)
    if (!place) return
    const day = dayKey(place.ms)
    const attrs = out.get(day) ?? {}
    const name = hourAttribute(place.ms, place.bucket)
    attrs[name] = (attrs[name] ?? 0) + sign
    out.set(day, attrs)
  }
  for (const w of writes) {
    move(w.before, -1)
    move(w.after, 1)
  }
  for (const [day, attrs] of out) {
    for (const [name, n] of Object.entries(attrs)) if (n === 0) delete attrs[name]
    if (Object.keys(attrs).length === 0) out.delete(day)
  }
  return out
}

/** A range split into whole hours `[from, to)` (ms) and the parts of an hour around them. */
export interface RangeParts {
  /** Whole hours, or null when the range holds none. */
  readonly hours: { readonly from: number; readonly to: number } | null
  /** Parts counted exactly, each with exclusive bounds as the reports' filters have them. */
  readonly edges: readonly { readonly after?: string; readonly before?: string }[]
}

/** The whole hours strictly between `after` and `before` (either may be open) and the edges. */
export function rangeParts(after?: string, before?: string): RangeParts {
  const a = after === undefined ? undefined : Date.parse(after)
  const b = before === undefined ? undefined : Date.parse(before)
  // Every instant of an hour that starts after `a` is after it; one that ends by `b` is before it.
  const from = a === undefined ? -Infinity : Math.floor(a / HOUR_MS) * HOUR_MS + HOUR_MS
  const to = b === undefined ? Infinity : Math.floor(b / HOUR_MS) * HOUR_MS
  if (from >= to) return { hours: null, edges: [{ after, before }] }
  const iso = (ms: number) => new Date(ms).toISOString()
  const edges: { after?: string; before?: string }[] = []
  if (a !== undefined) edges.push({ after, before: iso(from) })
  // Just before `to`: the range's end part starts at `to` itself.
  if (b !== undefined && b > to) edges.push({ after: iso(to - 1), before })
  return { hours: { from, to }, edges }
}

/**
 * The histogram's count over whole hours `[from, to)`: the buckets `only` keeps (every bucket
 * when undefined), from day items `day → attributes`.
 */
export function sumHours(
  days: ReadonlyMap<string, Readonly<Record<string, unknown>>>,
  from: number,
  to: number,
  only?: string,
): number {
  let total = 0
  for (const [day, attrs] of days) {
    for (const [name, n] of Object.entries(attrs)) {
      const m = /^h(\d\d)_(.+)$/.exec(name)
      if (!m || typeof n !== 'number' || (only !== undefined && m[2] !== only)) continue
      const start = Date.parse(`${day}T${m[1]}:00:00.000Z`)
      if (start >= from && start < to) total += n
    }
  }
  return total
}

/** The UTC days an hour range touches, `yyyy-mm-dd` (first, last), open ends as given. */
export function daysOf(hours: { readonly from: number; readonly to: number }): {
  first?: string
  last?: string
} {
  return {
    ...(Number.isFinite(hours.from) ? { first: dayKey(hours.from) } : {}),
    ...(Number.isFinite(hours.to) ? { last: dayKey(hours.to - 1) } : {}),
  }
}
