/**
 * Enrollment listings. By user (gsi4) and by course (gsi5) read that user's or course's
 * enrollments whole and filter and sort them here; tenant-wide listings are a Query on gsi1-3 for
 * the three sort orders with the filters as a FilterExpression, totals from the counters when
 * only `status` (or nothing) filters. A group's enrollments are read member by member (a bounded
 * number in flight) or, when that is no cheaper, from the tenant-wide index (see groupReadPlan).
 */
import type { Enrollment, EnrollmentSort, EnrollmentStatus } from '../domain/enrollments/enrollment.ts'
import type { TenantContext } from '../domain/tenants/tenant.ts'
import { mapLimit } from '../concurrency.ts'
import { getItem, queryAll, queryCount, queryUpTo } from './db.ts'
import { toEnrollment, toEnrollmentCounters } from './enrollment-items.ts'
import { indexes, keys } from './keys.ts'

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

async function allOnIndex(
  index: typeof indexes.gsi4 | typeof indexes.gsi5,
  pk: string,
): Promise<Enrollment[]> {
  const items = await queryAll({
    IndexName: index.name,
    KeyConditionExpression: '#pk = :pk',
    ExpressionAttributeNames: { '#pk': index.pk },
    ExpressionAttributeValues: { ':pk': pk },
  })
  return items.map(toEnrollment)
}

export function listUserEnrollments(tenant: TenantContext, userId: string): Promise<Enrollment[]> {
  return allOnIndex(indexes.gsi4, keys.userEnrollmentsPk(tenant, userId))
}

export function listCourseEnrollments(tenant: TenantContext, courseId: string): Promise<Enrollment[]> {
  return allOnIndex(indexes.gsi5, keys.courseEnrollmentsPk(tenant, courseId))
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

async function tenantCounters(tenant: TenantContext) {
  return toEnrollmentCounters(await getItem(keys.counters(tenant)))
}

async function listGroupEnrollments(
  tenant: TenantContext,
  userIds: ReadonlySet<string>,
  q: EnrollmentListQuery,
): Promise<{ items: Enrollment[]; total: number }> {
  const counter = await tenantCounters(tenant)
  if (groupReadPlan(userIds.size, counter.total) === 'tenant') {
    return page((await queryAll(tenantIndexQuery(tenant, q))).map(toEnrollment), q)
  }
  const lists = await mapLimit([...userIds], MEMBER_QUERIES_IN_FLIGHT, (id) =>
    listUserEnrollments(tenant, id),
  )
  return page(lists.flat(), q)
}

/** The tenant-wide index of the requested sort, with every filter but the member set. */
function tenantIndexQuery(tenant: TenantContext, q: EnrollmentListQuery) {
  const index = indexFor[q.sortBy]
  const parts: string[] = []
  const names: Record<string, string> = { '#pk': index.pk }
  const values: Record<string, unknown> = { ':pk': keys.enrollmentsIndexPk(tenant) }
  if (q.status) {
    parts.push('#status = :status')
    names['#status'] = 'status'
    values[':status'] = q.status
  }
  if (q.dueBefore) {
    parts.push('due_date < :dueBefore')
    values[':dueBefore'] = q.dueBefore
  }
  if (q.dueAfter) {
    parts.push('(due_date > :dueAfter AND attribute_type(due_date, :string))')
    values[':dueAfter'] = q.dueAfter
    values[':string'] = 'S'
  }
  if (q.createdAfter) {
    parts.push('created_at > :createdAfter')
    values[':createdAfter'] = q.createdAfter
  }
  return {
    IndexName: index.name,
    KeyConditionExpression: '#pk = :pk',
    ...(parts.length ? { FilterExpression: parts.join(' AND ') } : {}),
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
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
  const input = tenantIndexQuery(tenant, q)
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

/** Completions: enrollments with completed_at, newest completion first (gsi3 below the missing marker). */
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
    queryUpTo(
      {
        IndexName: indexes.gsi3.name,
        KeyConditionExpression: '#pk = :pk AND #sk < :missing',
        ExpressionAttributeNames: { '#pk': indexes.gsi3.pk, '#sk': indexes.gsi3.sk },
        ExpressionAttributeValues: { ':pk': keys.enrollmentsIndexPk(tenant), ':missing': keys.missingDate },
        ScanIndexForward: false,
        Limit: Math.min(1000, want),
      },
      want,
    ),
    tenantCounters(tenant),
  ])
  return { items: items.slice(q.offset).map(toEnrollment), total: counters.completions }
}
