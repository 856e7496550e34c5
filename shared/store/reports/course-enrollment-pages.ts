/**
 * The enrollments report of one course with no other filter: a page of the course's enrollments
 * in enrollment-date order (gsi5, whose sort key is that order) read with a Limit, and its total
 * the course tally's enrollment count (course-report-items.ts), which every enrollment write moves
 * in its own transaction (enrollments are never deleted). Before, every enrollment of the course
 * was read whole to count and sort them (about 150 RCU for a course of 500).
 */
import type { Enrollment } from '../../domain/enrollments/enrollment.ts'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import { getCourseTallies } from './course-report-items.ts'
import { courseEnrollmentsParams } from '../enrollments/enrollments-list.ts'
import { pageOf } from './reports-store.ts'

export function courseEnrollmentsPageParams(tenant: TenantContext, courseId: string, order: 'asc' | 'desc') {
  return { ...courseEnrollmentsParams(tenant, courseId), ScanIndexForward: order === 'asc' }
}

export async function pageOfCourseEnrollments(
  tenant: TenantContext,
  courseId: string,
  order: 'asc' | 'desc',
  offset: number,
  limit: number,
): Promise<{ items: Enrollment[]; total: number }> {
  const [tallies, page] = await Promise.all([
    getCourseTallies(tenant, [courseId]),
    // The total is the tally's: 0 only stops pageOf counting the range.
    pageOf(courseEnrollmentsPageParams(tenant, courseId, order), offset, limit, 0),
  ])
  return { items: page.items, total: tallies.get(courseId)?.enrollments ?? 0 }
}
