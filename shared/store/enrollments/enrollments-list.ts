/**
 * Enrollment listings. By user (gsi4) and by course (gsi5) read that user's or course's
 * enrollments whole and filter and sort them here; tenant-wide listings are a Query on gsi1-3 for
 * the three sort orders with the filters as a FilterExpression, totals from the counters when
 * only `status` (or nothing) filters. A group's enrollments are read member by member (a bounded
 * number in flight) or, when that is no cheaper, from the tenant-wide index (see groupReadPlan).
 */
import type { Enrollment, EnrollmentSort, EnrollmentStatus } from '../../domain/enrollments/enrollment.ts'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import { mapLimit } from '../../concurrency.ts'
import { getItem, queryAll, queryCount, queryUpTo } from '../core/db.ts'
import { toEnrollment, toEnrollmentCounters } from './enrollment-items.ts'
import { cond, queryExpression, type Condition } from '../core/expression.ts'
import { indexes, keys } from '../core/keys.ts'

export interface EnrollmentFilters {
  readonly userId?: string
  readonly courseId?: string
  readonly status?: EnrollmentStatus
  /** Users of a group, resolved by the caller. */
  readonly userIds?: ReadonlySet<string>
  readonly dueBefore?: string
  readonly dueAfter?: string
  readonly createdAfter?: string
}

export interface EnrollmentListQuery extends EnrollmentFilters {
  readonly sortBy: EnrollmentSort
  readonly order: 'asc' | 'desc'
  readonly offset: number
  readonly limit: number
}

/** A user's (gsi4) or a course's (gsi5) enrollments, whole. */
function indexQueryParams(index: typeof indexes.gsi4 | typeof indexes.gsi5, pk: string) {
  return { IndexName: index.name, ...queryExpression({ key: cond.eq(index.pk, pk) }) }
}

export const userEnrollmentsParams = (tenant: TenantContext, userId: string) =>
  indexQueryParams(indexes.gsi4, keys.userEnrollmentsPk(tenant, userId))

export const courseEnrollmentsParams = (tenant: TenantContext, courseId: string) =>
  indexQueryParams(indexes.gsi5, keys.courseEnrollmentsPk(tenant, courseId))

export async function listUserEnrollments(tenant: TenantContext, userId: string): Promise<Enrollment[]> {
  return (await queryAll(userEnrollmentsParams(tenant, userId))).map(toEnrollment)
}

export async function listCourseEnrollments(tenant: TenantContext, courseId: string): Promise<Enrollment[]> {
  return (await queryAll(courseEnrollmentsParams(tenant, courseId))).map(toEnrollment)
}

export function matches(e: Enrollment, f: EnrollmentFilters): boolean {
  if (f.userId && e.userId !== f.userId) return false
  if (f.courseId && e.courseId !== f.courseId) return false
  if (f.status && e.status !== f.status) return false
  if (f.userIds && !f.userIds.has(e.userId)) return false
  if (f.dueBefore && !(e.dueDate !== null && e.dueDate < f.dueBefore)) return false
  if (f.dueAfter && !(e.dueDate !== null && e.dueDate > f.dueAfter)) return false
  if (f.createdAfter && !(e.createdAt > f.createdAfter)) return false
  return true
}

const sortValue: Record<EnrollmentSort, (e: Enrollment) => string> = {
  enrolled_at: (e) => keys.sortKey(e.enrolledAt, e.id),
  due_date: (e) => keys.sortKey(e.dueDate ?? keys.missingDate, e.id),
  completed_at: (e) => keys.sortKey(e.completedAt ?? keys.missingDate, e.id),
}

/** The same order the indexes give: a missing date sorts after every date. */
export function sortEnrollments(list: Enrollment[], by: EnrollmentSort, order: 'asc' | 'desc'): Enrollment[] {
  const key = sortValue[by]
  const dir = order === 'asc' ? 1 : -1
  return list.sort((a, b) => (key(a) < key(b) ? -dir : key(a) > key(b) ? dir : 0))
}

function page(list: Enrollment[], q: EnrollmentListQuery) {
  const filtered = sortEnrollments(
    list.filter((e) => matches(e, q)),
    q.sortBy,
    q.order,
  )
  return { items: filtered.slice(q.offset, q.offset + q.limit), total: filtered.length }
}

const indexFor = { enrolled_at: indexes.gsi1, due_date: indexes.gsi2, completed_at: indexes.gsi3 } as const

/** Member queries of one group listing in flight at once. */
export const MEMBER_QUERIES_IN_FLIGHT = 8

/**
 * How a group's enrollments are read. Member by member costs a Query per member, each at least
 * 0.5 read units (4 KB, eventually consistent), 8 in flight. The tenant-wide index costs about
 * 0.25 units per enrollment (items of about 2 KB) in 1 MB pages, one after the other: far fewer
 * calls. The tenant index is read when it costs at most twice the member queries' floor
 * (tenant enrollments <= 4 x members), so either way the work is bounded by the group's size
 * (at most about members + 3 calls, and members read units plus the members' own enrollments),
 * never by the tenant's.
 */
export function groupReadPlan(members: number, tenantEnrollments: number): 'members' | 'tenant' {
  return tenantEnrollments <= 4 * members ? 'tenant' : 'members'
}

export const countersParams = (tenant: TenantContext) => ({ Key: keys.counters(tenant) })

async function tenantCounters(tenant: TenantContext) {
  return toEnrollmentCounters(await getItem(countersParams(tenant).Key))
}

async function listGroupEnrollments(
  tenant: TenantContext,
  userIds: ReadonlySet<string>,
  q: EnrollmentListQuery,
): Promise<{ items: Enrollment[]; total: number }> {
  const counter = await tenantCounters(tenant)
  if (groupReadPlan(userIds.size, counter.total) === 'tenant') {
    return page((await queryAll(tenantEnrollmentsParams(tenant, q))).map(toEnrollment), q)
  }
  const lists = await mapLimit([...userIds], MEMBER_QUERIES_IN_FLIGHT, (id) =>
    listUserEnrollments(tenant, id),
  )
  return page(lists.flat(), q)
}

/** The tenant-wide index of the requested sort, with every filter but the member set. */
export function tenantEnrollmentsParams(tenant: TenantContext, q: EnrollmentListQuery) {
  const index = indexFor[q.sortBy]
  const filters: Condition[] = []
  if (q.status) filters.push(cond.eq('status', q.status))
  if (q.dueBefore) filters.push(cond.lt('due_date', q.dueBefore))
  // A missing due date is stored as null: never "after" a date.
  if (q.dueAfter) filters.push(cond.and(cond.gt('due_date', q.dueAfter), cond.hasType('due_date', 'S')))
  if (q.createdAfter) filters.push(cond.gt('created_at', q.createdAfter))
  return {
    IndexName: index.name,
    ...queryExpression({
      key: cond.eq(index.pk, keys.enrollmentsIndexPk(tenant)),
      ...(filters.length > 0 ? { filter: cond.and(...filters) } : {}),
    }),
    ScanIndexForward: q.order === 'asc',
  }
}

export async function listEnrollments(
  tenant: TenantContext,
  q: EnrollmentListQuery,
): Promise<{ items: Enrollment[]; total: number }> {
  if (q.userId) return page(await listUserEnrollments(tenant, q.userId), q)
  if (q.courseId) return page(await listCourseEnrollments(tenant, q.courseId), q)
  if (q.userIds) return listGroupEnrollments(tenant, q.userIds, q)
  const input = tenantEnrollmentsParams(tenant, q)
  const counter = await tenantCounters(tenant)
  const onlyStatus = !q.dueBefore && !q.dueAfter && !q.createdAfter
  const known = onlyStatus ? (q.status ? counter.byStatus[q.status] : counter.total) : undefined
  const want = q.offset + q.limit
  const items = await queryUpTo(
    { ...input, Limit: Math.min(1000, input.FilterExpression ? want * 4 + 20 : want) },
    want,
  )
  const total = known ?? (await queryCount(input))
  return { items: items.slice(q.offset).map(toEnrollment), total }
}

/** Completions, newest first: gsi3 below the missing-date marker holds only completed enrollments. */
export function completionsParams(tenant: TenantContext, want: number) {
  return {
    IndexName: indexes.gsi3.name,
    ...queryExpression({
      key: cond.and(
        cond.eq(indexes.gsi3.pk, keys.enrollmentsIndexPk(tenant)),
        cond.lt(indexes.gsi3.sk, keys.missingDate),
      ),
    }),
    ScanIndexForward: false,
    Limit: Math.min(1000, want),
  }
}

/** Completions: enrollments with completed_at, newest completion first. */
export async function listCompletions(
  tenant: TenantContext,
  q: { userId?: string; offset: number; limit: number },
): Promise<{ items: Enrollment[]; total: number }> {
  if (q.userId) {
    const done = (await listUserEnrollments(tenant, q.userId)).filter((e) => e.completedAt !== null)
    const sorted = sortEnrollments(done, 'completed_at', 'desc')
    return { items: sorted.slice(q.offset, q.offset + q.limit), total: sorted.length }
  }
  const want = q.offset + q.limit
  const [items, counters] = await Promise.all([
    queryUpTo(completionsParams(tenant, want), want),
    tenantCounters(tenant),
  ])
  return { items: items.slice(q.offset).map(toEnrollment), total: counters.completions }
}
