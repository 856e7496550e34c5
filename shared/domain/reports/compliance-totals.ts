/**
 * Compliance totals from a maintained histogram (docs/decisions/0023): each assignment sits in one
 * bucket: `none` (no completion), `never` (a completion whose certificate never expires) or the UTC
 * day its certificate expires. Every enrollment write moves the buckets by expiryBucketDelta, so
 * the totals of each status at an `as_of` no completion is later than (now or a future date) are
 * sums of buckets, plus the exact count of the certificates expiring on as_of's own day up to it.
 */
import type { Enrollment } from '../enrollments/enrollment.ts'
import { expiringWindowEnd, isAssignment } from './compliance.ts'
import type { ComplianceStatus } from './rows.ts'

export type ExpiryBucket = 'none' | 'never' | `${number}-${number}-${number}`

type Bucketed = Pick<Enrollment, 'status' | 'completedAt' | 'certificateExpiresAt'>

/** The UTC day of a timestamp, `yyyy-mm-dd`. */
export const dayOf = (at: string): ExpiryBucket =>
  new Date(Date.parse(at)).toISOString().slice(0, 10) as ExpiryBucket

/** Where an enrollment counts, or null when it is not an assignment. */
export function expiryBucket(e: Bucketed): ExpiryBucket | null {
  if (!isAssignment(e.status)) return null
  if (e.completedAt === null) return 'none'
  return e.certificateExpiresAt === null ? 'never' : dayOf(e.certificateExpiresAt)
}

/** How writes (each a state before, or none for a new enrollment, and after) move the buckets; no zero kept. */
export function expiryBucketDelta(
  writes: readonly { readonly before: Bucketed | undefined; readonly after: Bucketed }[],
): Map<ExpiryBucket, number> {
  const d = new Map<ExpiryBucket, number>()
  const add = (b: ExpiryBucket | null, n: number) => {
    if (b !== null) d.set(b, (d.get(b) ?? 0) + n)
  }
  for (const w of writes) {
    if (w.before) add(expiryBucket(w.before), -1)
    add(expiryBucket(w.after), 1)
  }
  for (const [b, n] of d) if (n === 0) d.delete(b)
  return d
}

/** What the totals are computed from: the buckets, and exact counts of two partial days. */
export interface ExpiryHistogram {
  /** Every assignment of the tenant. */
  readonly assignments: number
  readonly none: number
  /** Certificates expiring each day (`yyyy-mm-dd`), at least up to the window end's day. */
  readonly byDay: ReadonlyMap<string, number>
  /** Certificates expiring on as_of's day at or before as_of. */
  readonly asOfDayUpTo: number
  /** Certificates expiring on the window end's day at or before the window end. */
  readonly windowEndDayUpTo: number
}

const daysBefore = (byDay: ReadonlyMap<string, number>, day: string) => {
  let sum = 0
  for (const [d, n] of byDay) if (d < day) sum += n
  return sum
}

/**
 * The three totals at `asOf` (which no completion is later than): expired by then (an expiry at
 * asOf counts) or no completion is non-compliant; expiring after asOf and by the window's end is
 * expiring soon; the rest (later or never) is compliant.
 */
export function complianceTotals(h: ExpiryHistogram, asOf: string): Record<ComplianceStatus, number> {
  const expiredBy = (at: string, upTo: number) => daysBefore(h.byDay, dayOf(at)) + upTo
  const expired = expiredBy(asOf, h.asOfDayUpTo)
  const byWindowEnd = expiredBy(expiringWindowEnd(asOf), h.windowEndDayUpTo)
  const non = h.none + expired
  const soon = byWindowEnd - expired
  return { non_compliant: non, expiring_soon: soon, compliant: h.assignments - non - soon }
}
