/**
 * The moves the state table leaves to the product (docs/decisions/0016): approval and denial of a
 * pending enrollment, and expiry of an active one whose access ended. Approval runs the engine's
 * seat guard again, as a condition of its own transaction.
 */
import type { Course } from '../../domain/courses/course.ts'
import type { Enrollment } from '../../domain/enrollments/enrollment.ts'
import {
  accessEnded,
  activated,
  assertPendingApproval,
  denied,
  expired,
  statusChanged,
  waitlistedOnApproval,
} from '../../domain/enrollments/lifecycle.ts'
import { ConflictError, NotFoundError } from '../../domain/errors.ts'
import { newEvent, newNotification } from '../../domain/events.ts'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import { getCourse } from '../../store/courses/courses-store.ts'
import { getEnrollment, saveEnrollment } from '../../store/enrollments/enrollments-store.ts'
import { isStale, retryOnConflict } from '../../store/core/optimistic.ts'
import { WriteRefused } from '../../store/core/store-errors.ts'
import { changeEnrollment, refusalError } from './enrollments-service.ts'
import { promoteAfterSeatFreed } from './waitlist-promotion.ts'

const nowIso = () => new Date().toISOString()

const decisionNotification = (
  template: 'enrollment_approved' | 'enrollment_denied',
  e: Enrollment,
  course: Course | undefined,
  at: string,
  reason: string | null = null,
) =>
  newNotification(
    template,
    e.userId,
    {
      enrollmentId: e.id,
      courseId: e.courseId,
      courseTitle: course?.title ?? null,
      status: e.status,
      ...(reason !== null ? { reason } : {}),
    },
    at,
  )

const changedMeanwhile = () =>
  new ConflictError('enrollment.concurrent_update', 'The enrollment changed meanwhile; retry')

/** The course an admission goes into: it must still be published. */
async function publishedCourse(tenant: TenantContext, courseId: string): Promise<Course> {
  const course = await getCourse(tenant, courseId, { consistent: true })
  if (!course || course.status !== 'published') throw refusalError('not_published')
  return course
}

/**
 * One try of an approval: active (taking a seat where seats are limited) if the course still has
 * room, else waitlisted where the course keeps a waitlist, else 422 course_full. A deactivated
 * learner is refused (422 user_inactive); nothing is written for a refusal.
 */
async function approveOnce(tenant: TenantContext, id: string, at: string): Promise<Enrollment> {
  const current = await getEnrollment(tenant, id, { consistent: true })
  if (!current) throw new NotFoundError('enrollment')
  assertPendingApproval(current, 'approved')
  const course = await publishedCourse(tenant, current.courseId)
  const active = activated(current, course.settings, at)
  try {
    await saveEnrollment(tenant, {
      before: current,
      after: active,
      effects: {
        events: [statusChanged(current.status, active, 'approved', at)],
        notifications: [decisionNotification('enrollment_approved', active, course, at)],
      },
      admission: { seatLimit: course.settings.seatLimit },
    })
    return active
  } catch (err) {
    if (!(err instanceof WriteRefused) || isStale(err) || err.has('pair_replaced')) throw err
    if (err.has('user_inactive')) throw refusalError('user_inactive')
    if (!err.has('course')) throw err
  }
  // The course refused: unpublished meanwhile, or full.
  const fresh = await publishedCourse(tenant, current.courseId)
  if (!fresh.settings.waitlist) throw refusalError('course_full')
  const waiting = waitlistedOnApproval(current, at)
  await saveEnrollment(tenant, {
    before: current,
    after: waiting,
    effects: {
      events: [statusChanged(current.status, waiting, 'approved', at)],
      notifications: [decisionNotification('enrollment_approved', waiting, fresh, at)],
    },
  })
  // A seat freed between the refusal and this write goes to the waitlist, this learner included.
  await promoteAfterSeatFreed(tenant, current.courseId, at)
  return (await getEnrollment(tenant, id, { consistent: true })) ?? waiting
}

/** `lms enrollment approve`: out of pending_approval into active or waitlisted. */
export async function approveEnrollment(
  tenant: TenantContext,
  id: string,
  at = nowIso(),
): Promise<Enrollment> {
  try {
    return await retryOnConflict(() => approveOnce(tenant, id, at), {
      isConflict: (err) => isStale(err) || (err instanceof WriteRefused && err.has('pair_replaced')),
    })
  } catch (err) {
    if (err instanceof WriteRefused) throw changedMeanwhile()
    throw err
  }
}

/**
 * `lms enrollment deny`: dropped, with enrollment.dropped (the catalog's event for a drop by an
 * admin) and enrollment.status_changed, and the learner told. A pending enrollment holds no seat, so none is freed.
 */
export async function denyEnrollment(
  tenant: TenantContext,
  id: string,
  at = nowIso(),
  reason: string | null = null,
): Promise<Enrollment> {
  const current = await getEnrollment(tenant, id)
  if (!current) throw new NotFoundError('enrollment')
  const course = await getCourse(tenant, current.courseId)
  return changeEnrollment(tenant, id, (e) => {
    assertPendingApproval(e, 'denied')
    const after = denied(e, at)
    return {
      enrollment: after,
      effects: {
        events: [
          newEvent('enrollment.dropped', { enrollmentId: e.id, userId: e.userId, courseId: e.courseId }, at),
          statusChanged(e.status, after, 'denied', at),
        ],
        notifications: [decisionNotification('enrollment_denied', after, course, at, reason)],
      },
    }
  })
}

/**
 * Expires one enrollment if its access has ended by `at` (read again: it may have been completed or
 * dropped since the index was read). Freeing its seat promotes from the waitlist.
 * @returns whether it expired
 */
export async function expireEnrollment(tenant: TenantContext, id: string, at: string): Promise<boolean> {
  let changed = false
  await changeEnrollment(tenant, id, (e) => {
    changed = accessEnded(e, at)
    if (!changed) return undefined
    const after = expired(e, at)
    return { enrollment: after, effects: { events: [statusChanged(e.status, after, 'expired', at)] } }
  })
  return changed
}
