/**
 * The completions and compliance reports of one course with no other filter (decision 0025): a
 * Limit read of the course's own keys-only index in the report's order (rpt5: completions by
 * completion time; rpt6: assignments in rpt1's order), then the page's enrollments by key. The
 * completions total is the course tally's; the assignments total a COUNT of rpt6, whose entries
 * hold nothing but keys. Before, every enrollment of the course was read whole and sorted.
 *
 * The enrollments report of one course reads a Limit of gsi5 (in enrollment-date order), its total
 * the tally's enrollment count, which every enrollment write moves (enrollments are never deleted).
 */
import type { QueryCommandInput } from '@aws-sdk/lib-dynamodb'
import type { Enrollment } from '../../domain/enrollments/enrollment.ts'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import { getCourseTallies } from './course-report-items.ts'
import { batchGet, queryCount, queryUpTo, type Item } from '../core/db.ts'
import { toEnrollment } from '../enrollments/enrollment-items.ts'
import { cond, queryExpression } from '../core/expression.ts'
import { keys } from '../core/keys.ts'
import { courseEnrollmentsParams } from '../enrollments/enrollments-list.ts'
import { reportIndexes } from './report-indexes.ts'

const MAX_LIMIT = 1000

export function courseCompletionsParams(tenant: TenantContext, courseId: string, order: 'asc' | 'desc') {
  const index = reportIndexes.courseCompletions
  return {
    IndexName: index.name,
    ...queryExpression({ key: cond.eq(index.pk, keys.courseCompletionsIndexPk(tenant, courseId)) }),
    ScanIndexForward: order === 'asc',
  }
}

export function courseEnrollmentsPageParams(tenant: TenantContext, courseId: string, order: 'asc' | 'desc') {
  return { ...courseEnrollmentsParams(tenant, courseId), ScanIndexForward: order === 'asc' }
}

export function courseAssignmentsParams(tenant: TenantContext, courseId: string) {
  const index = reportIndexes.courseAssignments
  return {
    IndexName: index.name,
    ...queryExpression({ key: cond.eq(index.pk, keys.courseAssignmentsIndexPk(tenant, courseId)) }),
  }
}

/** The entries from `offset` of a keys-only range, read in its order, then their items by key. */
export async function pageByKey(
  params: Omit<QueryCommandInput, 'TableName'>,
  offset: number,
  limit: number,
): Promise<Enrollment[]> {
  const want = offset + limit
  const entries = (await queryUpTo({ ...params, Limit: Math.min(MAX_LIMIT, want) }, want)).slice(offset)
  const items = await batchGet(entries.map((e: Item) => ({ pk: String(e.pk), sk: String(e.sk) })))
  const bySk = new Map(items.map((i) => [String(i.sk), i]))
  // An entry whose item changed since the index was read shows as it is now, in the index's place.
  return entries.flatMap((e) => {
    const item = bySk.get(String(e.sk))
    return item ? [toEnrollment(item)] : []
  })
}

/** A page of one course's report, its total the course tally's `count`. */
export async function withTallyTotal(
  tenant: TenantContext,
  courseId: string,
  count: 'enrollments' | 'completions',
  page: Promise<Enrollment[]>,
): Promise<{ items: Enrollment[]; total: number }> {
  const [tallies, items] = await Promise.all([getCourseTallies(tenant, [courseId]), page])
  return { items, total: tallies.get(courseId)?.[count] ?? 0 }
}

export async function pageOfCourseAssignments(
  tenant: TenantContext,
  courseId: string,
  offset: number,
  limit: number,
): Promise<{ items: Enrollment[]; total: number }> {
  const params = courseAssignmentsParams(tenant, courseId)
  const [total, items] = await Promise.all([queryCount(params), pageByKey(params, offset, limit)])
  return { items, total }
}
