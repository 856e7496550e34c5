/**
 * Waitlist promotion: when a seat frees (a drop, a completion, an expiry, a raised seat limit), the
 * course's oldest waitlisted enrollments become active, each in its own transaction conditioned on
 * the enrollment still waitlisted as read and on the course still having room. However many
 * promoters run at once (50 parallel drops each start one), a seat is given once and the course is
 * never over-admitted: a promoter that loses a candidate to another moves on, and one that finds
 * the course full stops. See docs/decisions/0016.
 */
import type { Course } from '../domain/courses/course.ts'
import type { Enrollment } from '../domain/enrollments/enrollment.ts'
import { activated } from '../domain/enrollments/lifecycle.ts'
import { newNotification } from '../domain/events.ts'
import type { TenantContext } from '../domain/tenants/tenant.ts'
import { errorFields, log } from '../log.ts'
import { getCourse } from '../store/courses-store.ts'
import { oldestWaitlisted } from '../store/enrollment-queues.ts'
import { getEnrollment, saveEnrollment } from '../store/enrollments-store.ts'
import { WriteRefused } from '../store/store-errors.ts'

/** Candidates read per round beyond the free seats: learners who cannot take a seat are passed over. */
const PASSED_OVER_ALLOWANCE = 10
/** Seats filled per round at most (a removed limit can free every seat at once). */
const ROUND_SIZE = 25
/** Rounds in a row that promote nothing before giving up (others are promoting, or the index lags). */
const IDLE_ROUNDS = 3

type Outcome = 'promoted' | 'passed_over' | 'full'

/** What the learner hears: the enrollment is active now. */
export function promotionNotification(e: Enrollment, course: Course, at: string) {
  return newNotification(
    'waitlist_promoted',
    e.userId,
    { enrollmentId: e.id, courseId: e.courseId, courseTitle: course.title, status: e.status },
    at,
  )
}

async function promoteOne(tenant: TenantContext, course: Course, id: string, at: string): Promise<Outcome> {
  const current = await getEnrollment(tenant, id, { consistent: true })
  // Taken by another promoter, dropped meanwhile, or an index entry not yet caught up.
  if (!current || current.status !== 'waitlisted') return 'passed_over'
  const after = activated(current, course.settings, at)
  try {
    await saveEnrollment(tenant, {
      before: current,
      after,
      effects: { notifications: [promotionNotification(after, course, at)] },
      admission: { seatLimit: course.settings.seatLimit },
    })
    return 'promoted'
  } catch (err) {
    if (!(err instanceof WriteRefused)) throw err
    if (err.has('stale') || err.has('pair_replaced')) return 'passed_over'
    if (err.has('course')) return 'full'
    // A deactivated learner keeps their place but cannot take a seat: the next one gets it.
    if (err.has('user_inactive')) return 'passed_over'
    throw err
  }
}

/**
 * Fills the course's free seats from its waitlist, oldest first.
 * @returns how many enrollments this call promoted
 */
export async function promoteWaitlisted(
  tenant: TenantContext,
  courseId: string,
  at: string,
): Promise<number> {
  let promoted = 0
  for (let idle = 0; idle < IDLE_ROUNDS;) {
    const course = await getCourse(tenant, courseId, { consistent: true })
    if (!course || course.status !== 'published') return promoted
    const { seatLimit } = course.settings
    const free = seatLimit === null ? ROUND_SIZE : Math.min(ROUND_SIZE, seatLimit - course.seatsTaken)
    if (free <= 0) return promoted
    const candidates = await oldestWaitlisted(tenant, courseId, free + PASSED_OVER_ALLOWANCE)
    if (candidates.length === 0) return promoted
    let round = 0
    for (const id of candidates) {
      if (round >= free) break
      const outcome = await promoteOne(tenant, course, id, at)
      if (outcome === 'full') return promoted
      if (outcome === 'promoted') round += 1
    }
    promoted += round
    idle = round === 0 ? idle + 1 : 0
  }
  return promoted
}

/**
 * Promotion after a change that freed a seat and is already saved: a failure here must not turn
 * the saved change into an error, so it is logged; the seat is filled at the next promotion.
 */
export async function promoteAfterSeatFreed(
  tenant: TenantContext,
  courseId: string,
  at: string,
): Promise<void> {
  try {
    await promoteWaitlisted(tenant, courseId, at)
  } catch (err) {
    log('error', 'waitlist promotion failed', { tenantId: tenant.id, courseId, ...errorFields(err) })
  }
}
