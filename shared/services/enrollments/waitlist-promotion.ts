/**
 * Waitlist promotion: when a seat frees (a drop, a completion, an expiry, a raised seat limit), the
 * course's oldest waitlisted enrollments become active, each in its own transaction conditioned on
 * the enrollment still waitlisted as read and on the course still having room. However many
 * promoters run at once (50 parallel drops each start one), a seat is given once and the course is
 * never over-admitted: the conditions decide. Each promoter fills at most the seats its own change
 * freed, and claims a waitlist place before writing it, so racing promoters spread over the
 * waitlist instead of queueing on the course item for the same learner. See docs/decisions/0016.
 */
import { randomUUID } from 'node:crypto'
import type { Course } from '../../domain/courses/course.ts'
import type { Enrollment } from '../../domain/enrollments/enrollment.ts'
import { activated, statusChanged } from '../../domain/enrollments/lifecycle.ts'
import { newNotification } from '../../domain/events.ts'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import { ServiceUnavailableError } from '../../domain/errors.ts'
import { errorFields, log } from '../../log.ts'
import { getCourse } from '../../store/courses/courses-store.ts'
import { oldestWaitlisted, type WaitlistPlace } from '../../store/enrollments/enrollment-queues.ts'
import { getEnrollment, saveEnrollment } from '../../store/enrollments/enrollments-store.ts'
import { claimPromotion, releasePromotion } from '../../store/enrollments/promotion-claims.ts'
import { WriteRefused } from '../../store/core/store-errors.ts'

/** Places read per round beyond the free seats: learners who cannot take a seat are passed over. */
const PASSED_OVER_ALLOWANCE = 10
/** Places read per round at most (one Query page of index keys). */
const MAX_PLACES = 100
/** Seats filled per round at most (a removed limit can free every seat at once). */
const ROUND_SIZE = 25
/** Rounds in a row that promote nothing before giving up (others hold the places, or the index lags). */
const IDLE_ROUNDS = 4

type Outcome = 'promoted' | 'passed_over' | 'held_elsewhere' | 'full'

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

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
      effects: {
        events: [statusChanged(current.status, after, 'promoted', at)],
        notifications: [promotionNotification(after, course, at)],
      },
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
 * Claims the place, then promotes it. A place another promoter holds is skipped: its holder
 * either promotes it or gives it back. A place not promoted is given back at once; a promoted one
 * has left the waitlist, and its claim runs out by itself.
 */
async function claimAndPromote(
  tenant: TenantContext,
  course: Course,
  { enrollmentId, place }: WaitlistPlace,
  at: string,
): Promise<Outcome> {
  const token = randomUUID()
  if (!(await claimPromotion(tenant, place, token))) return 'held_elsewhere'
  let outcome: Outcome | undefined
  try {
    outcome = await promoteOne(tenant, course, enrollmentId, at)
    return outcome
  } finally {
    if (outcome !== 'promoted') {
      // A claim that cannot be given back runs out within its lease.
      await releasePromotion(tenant, place, token).catch((err: unknown) =>
        log('error', 'promotion claim not released', { tenantId: tenant.id, ...errorFields(err) }),
      )
    }
  }
}

export interface PromotionOptions {
  /**
   * The most seats to fill: those the change freed (a drop frees one). Promoters started by
   * other changes fill theirs; a raised or removed seat limit fills every free seat.
   */
  readonly atMost?: number
}

/**
 * Fills the course's free seats from its waitlist, oldest first, at most `atMost` of them.
 * @returns how many enrollments this call promoted
 */
export async function promoteWaitlisted(
  tenant: TenantContext,
  courseId: string,
  at: string,
  { atMost = Number.POSITIVE_INFINITY }: PromotionOptions = {},
): Promise<number> {
  let promoted = 0
  for (let idle = 0; idle < IDLE_ROUNDS && promoted < atMost;) {
    // Places held by others come free (promoted or given back) within a moment: wait a little.
    if (idle > 0) await sleep(Math.random() * 100 * 2 ** idle)
    const course = await getCourse(tenant, courseId, { consistent: true })
    if (!course || course.status !== 'published') return promoted
    const { seatLimit } = course.settings
    const free = seatLimit === null ? MAX_PLACES : seatLimit - course.seatsTaken
    const wanted = Math.min(ROUND_SIZE, free, atMost - promoted)
    if (wanted <= 0) return promoted
    // Promoters running at once hold about one place per free seat, ahead of the ones left.
    const places = await oldestWaitlisted(
      tenant,
      courseId,
      Math.min(MAX_PLACES, free + PASSED_OVER_ALLOWANCE),
    )
    if (places.length === 0) return promoted
    let round = 0
    for (const place of places) {
      if (round >= wanted) break
      const outcome = await claimAndPromote(tenant, course, place, at)
      if (outcome === 'full') return promoted + round
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
 * With `surfaceUnavailable`, a store that stays overloaded (ServiceUnavailableError) is thrown
 * instead, for a caller whose retry runs the promotion again (a repeated drop does).
 */
export async function promoteAfterSeatFreed(
  tenant: TenantContext,
  courseId: string,
  at: string,
  { surfaceUnavailable = false, ...options }: PromotionOptions & { surfaceUnavailable?: boolean } = {},
): Promise<void> {
  try {
    await promoteWaitlisted(tenant, courseId, at, options)
  } catch (err) {
    if (surfaceUnavailable && err instanceof ServiceUnavailableError) throw err
    log('error', 'waitlist promotion failed', { tenantId: tenant.id, courseId, ...errorFields(err) })
  }
}
