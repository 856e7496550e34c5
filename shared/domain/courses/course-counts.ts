/**
 * How a course's status change moves the tenant's course counts: the count per status (the
 * listing's totals) and the active (published) courses, which the plan's course cap limits.
 */
import type { CourseStatus } from './course.ts'

export interface CourseCountsMove {
  /** +1 for a new course, else 0. */
  readonly total: number
  /** Per status: -1 for the status left, +1 for the status entered. */
  readonly byStatus: Readonly<Partial<Record<CourseStatus, number>>>
  /** +1 on publish, -1 when a published course becomes draft or archived, else 0. */
  readonly active: number
  /** The change publishes a course, so the plan's course cap must leave it room. */
  readonly takesActiveSlot: boolean
}

/**
 * @param before the status before the change; null for a course being created
 * @example
 * courseCountsMove('draft', 'published')
 * // { total: 0, byStatus: { draft: -1, published: 1 }, active: 1, takesActiveSlot: true }
 */
export function courseCountsMove(before: CourseStatus | null, after: CourseStatus): CourseCountsMove {
  const wasActive = before === 'published'
  const isActive = after === 'published'
  const byStatus: Partial<Record<CourseStatus, number>> =
    before === after ? {} : { ...(before !== null ? { [before]: -1 } : {}), [after]: 1 }
  return {
    total: before === null ? 1 : 0,
    byStatus,
    active: Number(isActive) - Number(wasActive),
    takesActiveSlot: isActive && !wasActive,
  }
}
