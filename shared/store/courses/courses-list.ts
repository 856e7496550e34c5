/**
 * The courses listing: created_at, title and updated_at orders are gsi1, gsi2 and gsi3 of the
 * tenant's courses. `meta.total` comes from the counters (status filters, and the default that
 * leaves out archived) or, with search, category or created_after, from a count Query.
 */
import * as v from 'valibot'
import type { Course, CourseSort, CourseStatus } from '../../domain/courses/course.ts'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import { getItem, queryCount, queryUpTo } from '../core/db.ts'
import { decodeItem, withDefault } from '../core/decode.ts'
import { cond, projectionExpression, queryExpression } from '../core/expression.ts'
import { indexes, keys } from '../core/keys.ts'
import { courseFromItem } from './courses-store.ts'

export interface CourseListQuery {
  readonly status?: CourseStatus
  readonly categoryId?: string
  readonly search?: string
  readonly createdAfter?: string
  readonly sortBy: CourseSort
  readonly order: 'asc' | 'desc'
  readonly offset: number
  readonly limit: number
}

const indexFor = { created_at: indexes.gsi1, title: indexes.gsi2, updated_at: indexes.gsi3 } as const

/** The Query of the listing's order and filters; without a status, archived courses are left out. */
export function coursesQueryParams(tenant: TenantContext, q: CourseListQuery) {
  const index = indexFor[q.sortBy]
  const filter = cond.and(
    q.status ? cond.eq('status', q.status) : cond.ne('status', 'archived'),
    ...(q.categoryId ? [cond.eq('category_id', q.categoryId)] : []),
    ...(q.search ? [cond.contains('search_text', q.search.toLowerCase())] : []),
    ...(q.createdAfter ? [cond.gt('created_at', q.createdAfter)] : []),
  )
  return {
    IndexName: index.name,
    ...queryExpression({ key: cond.eq(index.pk, keys.coursesIndexPk(tenant)), filter }),
    ScanIndexForward: q.order === 'asc',
  }
}

/** Reads a page and its offset: filters drop items after the read, so each call reads extra. */
export function listCoursesParams(tenant: TenantContext, q: CourseListQuery) {
  return { ...coursesQueryParams(tenant, q), Limit: Math.min(1000, (q.offset + q.limit) * 2 + 20) }
}

const count = withDefault(v.number(), 0)
const CourseCountsItem = v.object({
  courses_total: count,
  courses_status_draft: count,
  courses_status_published: count,
  courses_status_archived: count,
})

/** The course counts of the tenant's counters item (which also holds other counts). */
export function courseCountsParams(tenant: TenantContext) {
  return { Key: keys.counters(tenant), ...projectionExpression(Object.keys(CourseCountsItem.entries)) }
}

async function courseCounts(tenant: TenantContext) {
  const { Key, ...projection } = courseCountsParams(tenant)
  // The projection leaves the key out; an absent counters item counts zero.
  return decodeItem('course counts', CourseCountsItem, { ...Key, ...(await getItem(Key, projection)) })
}

/** The courses a course-performance report has a row for (published and archived), from the counters. */
export async function reportableCourseCount(tenant: TenantContext): Promise<number> {
  const n = await courseCounts(tenant)
  return n.courses_status_published + n.courses_status_archived
}

/** The listing's total from the counters, when the filters are only a status (or none). */
async function countedTotal(tenant: TenantContext, q: CourseListQuery): Promise<number | undefined> {
  if (q.categoryId || q.search || q.createdAfter) return undefined
  const n = await courseCounts(tenant)
  return q.status ? n[`courses_status_${q.status}`] : n.courses_total - n.courses_status_archived
}

export async function listCourses(
  tenant: TenantContext,
  q: CourseListQuery,
): Promise<{ items: Course[]; total: number }> {
  const want = q.offset + q.limit
  const items = await queryUpTo(listCoursesParams(tenant, q), want)
  const total = (await countedTotal(tenant, q)) ?? (await queryCount(coursesQueryParams(tenant, q)))
  return { items: items.slice(q.offset).map(courseFromItem), total }
}
