/**
 * The reports' tenant-wide reads (docs/decisions/0018): each is a Query on keys designed for it.
 * Reads narrowed to a course, a user or a group use the enrollment listings' own (gsi4, gsi5).
 *
 * - completions: gsi3 (tenant enrollments by completed_at) between the completed_after/before
 *   bounds, below the missing-date marker (completions only);
 * - enrollments: gsi1 (tenant enrollments by enrolled_at) between the enrolled_after/before bounds;
 * - compliance: rpt1 (assignments by certificate expiry), one key range per status at `as_of`;
 * - user activity: act1 (activity-index.ts).
 */
import type { QueryCommandInput } from '@aws-sdk/lib-dynamodb'
import type { Enrollment } from '../../domain/enrollments/enrollment.ts'
import type { ComplianceStatus } from '../../domain/reports/rows.ts'
import { expiringWindowEnd } from '../../domain/reports/compliance.ts'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import { getItem, queryAll, queryCount, queryUpTo } from '../core/db.ts'
import {
  toEnrollment,
  toEnrollmentCounters,
  type EnrollmentCounters,
} from '../enrollments/enrollment-items.ts'
import { cond, queryExpression, type Condition } from '../core/expression.ts'
import { indexes, keys } from '../core/keys.ts'
import { reportIndexes } from './report-indexes.ts'
import type { Course } from '../../domain/courses/course.ts'
import { courseFromItem } from '../courses/courses-store.ts'
import { rangeTotal } from './range-histogram-items.ts'

const MAX_PAGE_READ = 1000
/** Above every id: `<value>#~` bounds a key range just after every key of that value. */
const afterValue = (value: string) => keys.sortKey(value, keys.missingDate)
/** Below every id: `<value>#` bounds a key range just before every key of that value. */
const beforeValue = (value: string) => `${value}#`

/** The inclusive sort key bounds of a date index between two exclusive dates, dated keys only. */
export function dateBounds(after?: string, before?: string): readonly [string, string] {
  return [after ? afterValue(after) : '0', before ? beforeValue(before) : keys.missingDate]
}

/** A key range of an index, with its inclusive sort key bounds, read in one order. */
export interface KeyRange {
  readonly index: { readonly name: string; readonly pk: string; readonly sk: string }
  readonly pk: string
  readonly from: string
  readonly to: string
  readonly filter?: Condition
  readonly order: 'asc' | 'desc'
}

/** The Query of a key range; only the `project` attributes when given. */
export function rangeQuery(r: KeyRange, project?: readonly string[]) {
  return {
    IndexName: r.index.name,
    ...queryExpression({
      key: cond.and(cond.eq(r.index.pk, r.pk), cond.between(r.index.sk, r.from, r.to)),
      filter: r.filter,
      project,
    }),
    ScanIndexForward: r.order === 'asc',
  }
}

/** The keys of `index` under the tenant's enrollments partition between the range's dates. */
function enrollmentDates(
  index: KeyRange['index'],
  tenant: TenantContext,
  q: { readonly after?: string; readonly before?: string; readonly order: 'asc' | 'desc' },
  filter: Condition | undefined,
): KeyRange {
  const [from, to] = dateBounds(q.after, q.before)
  return {
    index,
    pk: keys.enrollmentsIndexPk(tenant),
    from,
    to,
    ...(filter ? { filter } : {}),
    order: q.order,
  }
}

/** `attribute` equal to `value`, or no filter without a value. */
export const filterOn = (attribute: string, value: string | undefined) =>
  value ? cond.eq(attribute, value) : undefined

export interface CompletionsRange {
  readonly after?: string
  readonly before?: string
  readonly passFail?: 'pass' | 'fail'
  readonly order: 'asc' | 'desc'
}

/** Tenant-wide completions by completion date: gsi3 below the missing-date marker. */
export const completionsKeyRange = (tenant: TenantContext, q: CompletionsRange) =>
  enrollmentDates(indexes.gsi3, tenant, q, filterOn('pass_fail', q.passFail))

export const completionsRangeParams = (tenant: TenantContext, q: CompletionsRange) =>
  rangeQuery(completionsKeyRange(tenant, q))

export interface EnrolledRange {
  readonly after?: string
  readonly before?: string
  readonly status?: string
  readonly order: 'asc' | 'desc'
}

/** Tenant-wide enrollments by enrollment date: gsi1. */
export const enrolledKeyRange = (tenant: TenantContext, q: EnrolledRange) =>
  enrollmentDates(indexes.gsi1, tenant, q, filterOn('status', q.status))

export const enrolledRangeParams = (tenant: TenantContext, q: EnrolledRange) =>
  rangeQuery(enrolledKeyRange(tenant, q))

/**
 * How many entries a page's first Query reads: exactly the page without a filter; with one, the
 * page over the filter's expected share of the entries (when the counters tell it) with a margin,
 * else twice the page. Too few costs another round trip, too many reads entries for nothing.
 */
export function entriesToRead(params: { FilterExpression?: string }, want: number, share?: number): number {
  if (params.FilterExpression === undefined) return want
  if (share !== undefined && share > 0 && share <= 1) return Math.ceil((want * 11) / (share * 10)) + 5
  return want * 2 + 20
}

/** A page of a range read (and the entries before it), and the range's size. */
export async function pageOf(
  params: Omit<QueryCommandInput, 'TableName'>,
  offset: number,
  limit: number,
  knownTotal: number | Promise<number> | undefined,
  share?: number,
): Promise<{ items: Enrollment[]; total: number }> {
  const want = offset + limit
  const read = queryUpTo(
    { ...params, Limit: Math.min(MAX_PAGE_READ, entriesToRead(params, want, share)) },
    want,
  )
  const [items, total] = await Promise.all([read, knownTotal ?? queryCount(params)])
  return { items: items.slice(offset).map(toEnrollment), total }
}

export async function allCompletions(tenant: TenantContext, q: CompletionsRange): Promise<Enrollment[]> {
  return (await queryAll(completionsRangeParams(tenant, q))).map(toEnrollment)
}

export async function tenantEnrollmentCounters(tenant: TenantContext): Promise<EnrollmentCounters> {
  return toEnrollmentCounters(await getItem(keys.counters(tenant)))
}

/** Every assignment of the tenant in rpt1 order (no completion, then by expiry), paged. */
export function assignmentsParams(tenant: TenantContext) {
  const index = reportIndexes.assignments
  return {
    IndexName: index.name,
    ...queryExpression({ key: cond.eq(index.pk, keys.assignmentsIndexPk(tenant)) }),
  }
}

export async function pageOfAssignments(
  tenant: TenantContext,
  offset: number,
  limit: number,
): Promise<Enrollment[]> {
  const want = offset + limit
  const items = await queryUpTo({ ...assignmentsParams(tenant), Limit: Math.min(MAX_PAGE_READ, want) }, want)
  return items.slice(offset).map(toEnrollment)
}

/**
 * The rpt1 key ranges (with their filter) holding the assignments of one status at `asOf`, in
 * index order. Expiry at `asOf` or before (or no completion) is non-compliant whatever the
 * completion date; a later expiry depends on whether the completion had happened by `asOf`.
 */
export function assignmentsInStatusParams(tenant: TenantContext, status: ComplianceStatus, asOf: string) {
  const index = reportIndexes.assignments
  const pk = cond.eq(index.pk, keys.assignmentsIndexPk(tenant))
  const windowEnd = expiringWindowEnd(asOf)
  const q = (key: Condition, filter: Condition) => ({
    IndexName: index.name,
    ...queryExpression({ key: cond.and(pk, key), filter }),
  })
  const completedBy = cond.le('completed_at', asOf)
  if (status === 'compliant') return [q(cond.gt(index.sk, afterValue(windowEnd)), completedBy)]
  if (status === 'expiring_soon')
    return [q(cond.between(index.sk, afterValue(asOf), afterValue(windowEnd)), completedBy)]
  return [
    { IndexName: index.name, ...queryExpression({ key: cond.and(pk, cond.lt(index.sk, afterValue(asOf))) }) },
    q(cond.gt(index.sk, afterValue(asOf)), cond.gt('completed_at', asOf)),
  ]
}

export async function assignmentsInStatus(
  tenant: TenantContext,
  status: ComplianceStatus,
  asOf: string,
): Promise<Enrollment[]> {
  const parts = await Promise.all(assignmentsInStatusParams(tenant, status, asOf).map((p) => queryAll(p)))
  return parts.flat().map(toEnrollment)
}

/** Courses a performance report covers (drafts excluded), by title, optionally of one category. */
export function reportableCoursesParams(tenant: TenantContext, categoryId?: string) {
  const index = indexes.gsi2
  return {
    IndexName: index.name,
    ...queryExpression({
      key: cond.eq(index.pk, keys.coursesIndexPk(tenant)),
      filter: cond.and(
        cond.ne('status', 'draft'),
        ...(categoryId ? [cond.eq('category_id', categoryId)] : []),
      ),
    }),
  }
}

export async function reportableCourses(tenant: TenantContext, categoryId?: string): Promise<Course[]> {
  return (await queryAll(reportableCoursesParams(tenant, categoryId))).map(courseFromItem)
}

/** The enrollments of a range (and status), from the hour histogram and the edges' COUNTs (0026). */
export const enrolledRangeTotal = (tenant: TenantContext, q: EnrolledRange) =>
  rangeTotal(tenant, 'enrolled', { after: q.after, before: q.before, bucket: q.status }, (edge) =>
    queryCount(enrolledRangeParams(tenant, { ...q, ...edge })),
  )

/** The completions of a range (and pass/fail), as enrolledRangeTotal. */
export const completionsRangeTotal = (tenant: TenantContext, q: CompletionsRange) =>
  rangeTotal(tenant, 'completed', { after: q.after, before: q.before, bucket: q.passFail }, (edge) =>
    queryCount(completionsRangeParams(tenant, { ...q, ...edge })),
  )
