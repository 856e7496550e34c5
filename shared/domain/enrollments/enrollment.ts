/**
 * Enrollments and the rules of the enrollment engine: one decision for POST /enrollments,
 * POST /courses/{id}/enrollments, bulk rows and the learner app.
 */
import * as v from 'valibot'
import type { Course } from '../courses/course.ts'
import { windowIsOpen } from '../courses/course.ts'
import { Timestamp, Uuid } from '../validation.ts'

export const enrollmentStatuses = [
  'active',
  'completed',
  'dropped',
  'expired',
  'waitlisted',
  'pending_approval',
] as const
export type EnrollmentStatus = (typeof enrollmentStatuses)[number]

/** A live enrollment blocks another for the same user and course (409). */
export const liveStatuses: ReadonlySet<EnrollmentStatus> = new Set([
  'active',
  'completed',
  'waitlisted',
  'pending_approval',
])

/** Counted when it is not dropped or expired: what a course's enrollment_count shows. */
export const isCounted = (status: EnrollmentStatus): boolean => status !== 'dropped' && status !== 'expired'

export type ModuleStatus = 'not_started' | 'in_progress' | 'completed'

export interface ModuleProgress {
  readonly status: ModuleStatus
  readonly score: number | null
  readonly timeSpentSeconds: number
  readonly startedAt: string | null
  readonly completedAt: string | null
  readonly lastActivityAt: string | null
}

export interface QuizAttempt {
  readonly moduleId: string
  readonly raw: number
  readonly max: number
  readonly scaled: number
  readonly passed: boolean
  readonly gradedAt: string
}

/** How an enrollment came to be: `source` is the spec's field; `channel` says through what. */
export type EnrollmentSource = 'native' | 'import'
export type EnrollmentChannel = 'api' | 'bulk' | 'app' | 'import'

export interface Enrollment {
  readonly id: string
  readonly userId: string
  readonly courseId: string
  readonly status: EnrollmentStatus
  readonly dueDate: string | null
  readonly completedAt: string | null
  readonly source: EnrollmentSource
  readonly channel: EnrollmentChannel
  readonly createdAt: string
  readonly enrolledAt: string
  readonly startedAt: string | null
  readonly updatedAt: string
  readonly progressPercent: number
  readonly score: number | null
  readonly passFail: 'pass' | 'fail' | null
  readonly certificateId: string | null
  readonly certificateNumber: string | null
  readonly certificateExpiresAt: string | null
  readonly language: string
  readonly timeSpentSeconds: number
  readonly lastActivityAt: string | null
  /** Whether this enrollment occupies one of the course's limited seats. */
  readonly holdsSeat: boolean
  /**
   * When an active enrollment's access ends (the course's access days counted from the moment it
   * became active); null when the course gives access without end. Fixed when access begins.
   */
  readonly accessExpiresAt: string | null
  readonly modules: Readonly<Record<string, ModuleProgress>>
  readonly quizAttempts: readonly QuizAttempt[]
  /**
   * An LTI launch linked the enrollment to a platform's line item (decision 0050): its events say
   * so, and the relay looks for the link only then. Set with the link, never by a change of the
   * enrollment; internal, never in a representation.
   */
  readonly scoresLinked: boolean
}

/** One write of an enrollment: its state as read (undefined: a new one) and as it is stored next. */
export interface EnrollmentWrite {
  readonly before: Enrollment | undefined
  readonly after: Enrollment
}

/** The per-row codes of bulk, and the reasons behind the single routes' 404/409/422. */
export const refusalCodes = [
  'user_not_found',
  'course_not_found',
  'duplicate',
  'user_inactive',
  'not_published',
  'window_closed',
  'prerequisites_incomplete',
  'session_selection_required',
  'course_full',
] as const
export type RefusalCode = (typeof refusalCodes)[number]

export const refusalMessages: Record<RefusalCode, string> = {
  user_not_found: 'User not found',
  course_not_found: 'Course not found',
  duplicate: 'The user already has a live enrollment in this course',
  user_inactive: 'The user is deactivated and cannot be enrolled',
  not_published: 'The course is not published',
  window_closed: 'The enrollment window of the course is closed',
  prerequisites_incomplete: 'The user has not completed the prerequisites of the course',
  session_selection_required: 'This instructor-led series needs a session chosen in the app',
  course_full: 'The course is full and has no waitlist',
}

export type Decision =
  | { readonly kind: 'refuse'; readonly code: RefusalCode }
  | {
      readonly kind: 'enroll'
      /** What the enrollment becomes if a seat is free (or no seat is needed). */
      readonly status: 'active' | 'pending_approval'
      readonly needsSeat: boolean
      /** When the course is full: waitlist (true) or refuse with course_full (false). */
      readonly waitlistIfFull: boolean
      /** Re-enrolling a dropped or expired enrollment: same record, clean slate. */
      readonly reactivates: string | null
    }

export interface DecisionInput {
  readonly user: { readonly isActive: boolean } | undefined
  readonly course: Course | undefined
  readonly existing: { readonly enrollmentId: string; readonly status: EnrollmentStatus } | undefined
  /** Courses this user has completed (for prerequisites). */
  readonly completedCourseIds: ReadonlySet<string>
  readonly at: string
}

/** Order: what is missing (404), what exists (409), then the course's guards (422). */
export function decideEnrollment(input: DecisionInput): Decision {
  const { user, course, existing, at } = input
  if (!user) return { kind: 'refuse', code: 'user_not_found' }
  if (!course) return { kind: 'refuse', code: 'course_not_found' }
  if (existing && liveStatuses.has(existing.status)) return { kind: 'refuse', code: 'duplicate' }
  if (!user.isActive) return { kind: 'refuse', code: 'user_inactive' }
  if (course.status !== 'published') return { kind: 'refuse', code: 'not_published' }
  const s = course.settings
  if (!windowIsOpen(s, at)) return { kind: 'refuse', code: 'window_closed' }
  if (s.prerequisites.some((id) => !input.completedCourseIds.has(id))) {
    return { kind: 'refuse', code: 'prerequisites_incomplete' }
  }
  if (s.requiresSessionSelection) return { kind: 'refuse', code: 'session_selection_required' }
  const reactivates = existing ? existing.enrollmentId : null
  if (s.requiresApproval) {
    return {
      kind: 'enroll',
      status: 'pending_approval',
      needsSeat: false,
      waitlistIfFull: false,
      reactivates,
    }
  }
  return {
    kind: 'enroll',
    status: 'active',
    needsSeat: s.seatLimit !== null,
    waitlistIfFull: s.waitlist,
    reactivates,
  }
}

export const CreateEnrollmentInput = v.object({
  user_id: Uuid,
  course_id: Uuid,
  due_date: v.optional(v.nullable(Timestamp)),
})
export type CreateEnrollmentInput = v.InferOutput<typeof CreateEnrollmentInput>

export const CourseEnrollmentInput = v.object({
  user_id: Uuid,
  due_date: v.optional(v.nullable(Timestamp)),
})

export const MAX_BULK_ROWS = 500

/** Rows are checked one by one by the engine, so a bad row is a row error, not a 400. */
export const BulkEnrollmentInput = v.object({
  enrollments: v.pipe(
    v.array(v.unknown()),
    v.minLength(1, 'must hold at least one row'),
    v.maxLength(MAX_BULK_ROWS, `must hold at most ${MAX_BULK_ROWS} rows`),
  ),
})

export const UpdateEnrollmentInput = v.object({ due_date: v.nullable(Timestamp) })

export const ListEnrollmentsFilters = v.object({
  user_id: v.optional(Uuid),
  course_id: v.optional(Uuid),
  status: v.optional(v.picklist(enrollmentStatuses, `must be one of ${enrollmentStatuses.join(', ')}`)),
  group_id: v.optional(Uuid),
  due_before: v.optional(Timestamp),
  due_after: v.optional(Timestamp),
  created_after: v.optional(Timestamp),
})

export const enrollmentSorts = ['enrolled_at', 'due_date', 'completed_at'] as const
export type EnrollmentSort = (typeof enrollmentSorts)[number]
