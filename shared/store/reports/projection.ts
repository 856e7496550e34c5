/**
 * A report projection (docs/decisions/0034-report-projections.md): an aggregate the reports read
 * instead of the enrollments or users, kept exact by moving in the transaction of every write that
 * changes what it counts (0014, 0018). report-projections.ts lists them for the writers.
 */
import type { Enrollment, EnrollmentWrite } from '../../domain/enrollments/enrollment.ts'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import type { User } from '../../domain/users/user.ts'
import type { Step } from '../core/transaction.ts'

/** A change as one transaction writes it. */
export type ReportChange =
  /** New or reactivated enrollments (a reactivation's `before` is the record it replaces, kept as history). */
  | { readonly kind: 'enrollments-added'; readonly writes: readonly EnrollmentWrite[] }
  | { readonly kind: 'enrollment-changed'; readonly before: Enrollment; readonly after: Enrollment }
  | { readonly kind: 'user-changed'; readonly before: User; readonly after: User }

export interface Projection {
  readonly name: string
  /**
   * What moves without a read first: ADDs to the tenant's COUNTERS item (every projection's go into
   * one update: an item appears once in a transaction) and its own steps, whose refusal is the index
   * of the write a condition guards.
   */
  readonly movesFor?: (
    tenant: TenantContext,
    change: ReportChange,
  ) => { readonly counters?: Readonly<Record<string, number>>; readonly steps?: readonly Step<number>[] }
  /** Steps conditioned on a value read first (consistent), refused as `refusal` when it moved meanwhile. */
  readonly readStepsFor?: <R>(tenant: TenantContext, change: ReportChange, refusal: R) => Promise<Step<R>[]>
}

/** The enrollment writes of a change (none for a user's). */
export function enrollmentWrites(change: ReportChange): readonly EnrollmentWrite[] {
  if (change.kind === 'enrollments-added') return change.writes
  return change.kind === 'enrollment-changed' ? [{ before: change.before, after: change.after }] : []
}

/** The writes by course: a course's aggregates move once per transaction, whatever its rows. */
export function writesByCourse(change: ReportChange): Map<string, EnrollmentWrite[]> {
  const out = new Map<string, EnrollmentWrite[]>()
  for (const w of enrollmentWrites(change))
    out.set(w.after.courseId, [...(out.get(w.after.courseId) ?? []), w])
  return out
}

/**
 * Moves a month histogram (`d<dd>` per day, and `d<dd>_<kind>` too with a kind) by `n` on `day`
 * (`yyyy-mm-dd`): the ADDs of each month's item, by month.
 */
export function moveOnDay(
  byMonth: Map<string, Record<string, number>>,
  day: string,
  n: number,
  kind?: string,
) {
  const add = byMonth.get(day.slice(0, 7)) ?? {}
  const names =
    kind === undefined ? [`d${day.slice(8, 10)}`] : [`d${day.slice(8, 10)}`, `d${day.slice(8, 10)}_${kind}`]
  for (const name of names) add[name] = (add[name] ?? 0) + n
  byMonth.set(day.slice(0, 7), add)
}
