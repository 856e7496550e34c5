/**
 * Moves out of `pending_approval` and `waitlisted`, and into `expired` (docs/decisions/0016): what
 * each move makes of the enrollment, as pure functions the engine and the expiry job share.
 */
import * as v from 'valibot'
import type { CourseSettings } from '../courses/course.ts'
import { ConflictError } from '../errors.ts'
import { newEvent, type DomainEvent } from '../events.ts'
import { text, textRules } from '../text-rules.ts'
import type { Enrollment, EnrollmentStatus } from './enrollment.ts'

const DAY_MS = 86_400_000

/** When access that begins at `at` ends under the course's access days; null without an end. */
export function accessExpiry(at: string, accessDays: number | null): string | null {
  if (accessDays === null) return null
  return new Date(Date.parse(at) + accessDays * DAY_MS).toISOString()
}

/**
 * Access begins (creation as active, approval, promotion): `enrolled_at` is that moment, so the
 * course's access days count from it, and the enrollment takes a seat when the course limits them.
 */
export function activated(e: Enrollment, settings: CourseSettings, at: string): Enrollment {
  return {
    ...e,
    status: 'active',
    enrolledAt: at,
    holdsSeat: settings.seatLimit !== null,
    accessExpiresAt: accessExpiry(at, settings.accessDays),
    updatedAt: at,
  }
}

/** Approved into a full course that keeps a waitlist: it waits, from now, for a seat. */
export const waitlistedOnApproval = (e: Enrollment, at: string): Enrollment => ({
  ...e,
  status: 'waitlisted',
  holdsSeat: false,
  updatedAt: at,
})

/** Denied: dropped. A pending enrollment holds no seat, so nothing is freed. */
export const denied = (e: Enrollment, at: string): Enrollment => ({
  ...e,
  status: 'dropped',
  holdsSeat: false,
  updatedAt: at,
})

/** Only a pending enrollment is approved or denied; anything else is refused (422), never re-decided. */
/** `POST /enrollments/{id}/approve` takes no field. */
export const ApproveEnrollmentInput = v.strictObject({})

/** `POST /enrollments/{id}/deny`: the reason, when given, goes to the learner with the decision. */
export const DenyEnrollmentInput = v.strictObject({
  reason: v.optional(v.nullable(text(textRules.decisionReason, { trimmed: true }))),
})

export function assertPendingApproval(e: Enrollment, action: 'approved' | 'denied'): void {
  if (e.status === 'pending_approval') return
  // 409 (api-additions section 4): the enrollment's state, not the request, is what is wrong.
  throw new ConflictError(
    'enrollment.not_pending_approval',
    `Only an enrollment pending approval can be ${action}; this one is ${e.status}`,
  )
}

/** An active enrollment whose access ended at or before `at`, not completed. */
export const accessEnded = (e: Enrollment, at: string): boolean =>
  e.status === 'active' && e.accessExpiresAt !== null && e.accessExpiresAt <= at

/** Expired: its seat is freed; re-enrolling later starts a clean slate (the state table). */
export const expired = (e: Enrollment, at: string): Enrollment => ({
  ...e,
  status: 'expired',
  holdsSeat: false,
  updatedAt: at,
})

/** Why an enrollment's status moved, as `enrollment.status_changed` says (docs/decisions/0046). */
export const statusChangeReasons = ['approved', 'denied', 'promoted', 'expired', 'reactivated'] as const
export type StatusChangeReason = (typeof statusChangeReasons)[number]

/**
 * The event of a move out of a queue, into expired, or back from dropped or expired: written with
 * the move, besides any event the catalog already names for it (a denial's enrollment.dropped).
 */
export const statusChanged = (
  previousStatus: EnrollmentStatus,
  after: Enrollment,
  reason: StatusChangeReason,
  at: string,
): DomainEvent =>
  newEvent(
    'enrollment.status_changed',
    {
      enrollmentId: after.id,
      userId: after.userId,
      courseId: after.courseId,
      previousStatus,
      status: after.status,
      reason,
    },
    at,
  )
