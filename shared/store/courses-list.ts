/**
 * The courses listing: created_at, title and updated_at orders are gsi1, gsi2 and gsi3 of the
 * tenant's courses. `meta.total` comes from the counters (status filters, and the default that
 * leaves out archived) or, with search, category or created_after, from a count Query.
 */
import type { Course, CourseSort, CourseStatus } from '../domain/courses/course.ts'
import type { TenantContext } from '../domain/tenants/tenant.ts'
import { getItem, queryCount, queryUpTo } from './db.ts'
import { indexes, keys } from './keys.ts'
import { toCourse } from './courses-store.ts'

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

export async function listCourses(
  tenant: TenantContext,
  q: CourseListQuery,
): Promise<{ items: Course[]; total: number }> {
  const index = indexFor[q.sortBy]
  const parts: string[] = []
  const names: Record<string, string> = { '#pk': index.pk, '#status': 'status' }
  const values: Record<string, unknown> = { ':pk': keys.coursesIndexPk(tenant) }
  if (q.status) {
    parts.push('#status = :status')
    values[':status'] = q.status
  } else {
    parts.push('#status <> :archived')
    values[':archived'] = 'archived'
  }
  if (q.categoryId) {
    parts.push('category_id = :category')
    values[':category'] = q.categoryId
  }
  if (q.search) {
    parts.push('contains(search_text, :search)')
    values[':search'] = q.search.toLowerCase()
  }
  if (q.createdAfter) {
    parts.push('created_at > :after')
    values[':after'] = q.createdAfter
  }
  const input = {
    IndexName: index.name,
    KeyConditionExpression: '#pk = :pk',
    FilterExpression: parts.join(' AND '),
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
    ScanIndexForward: q.order === 'asc',
  }
  const counters = (await getItem(keys.counters(tenant))) ?? {}
  const n = (attr: string) => (counters[attr] as number | undefined) ?? 0
  const byCounters =
    q.categoryId || q.search || q.createdAfter
      ? undefined
      : q.status
        ? n(`courses_status_${q.status}`)
        : n('courses_total') - n('courses_status_archived')
  const want = q.offset + q.limit
  const items = await queryUpTo({ ...input, Limit: Math.min(1000, want * 2 + 20) }, want)
  const total = byCounters ?? (await queryCount(input))
  return { items: items.slice(q.offset).map(toCourse), total }
}
