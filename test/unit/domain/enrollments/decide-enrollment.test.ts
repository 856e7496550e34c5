/**
 * The enrollment engine's decision (spec, "States and transitions", Enrollment; decision note 0007,
 * "Order of checks"): what is missing (404), what exists (409), then the course's guards (422),
 * then approval and seats. The seat count itself is decided by the store's conditions.
 */
import { describe, expect, it } from 'vitest'
import {
  defaultSettings,
  type Course,
  type CourseSettings,
  type CourseStatus,
} from '../../../../shared/domain/courses/course.ts'
import {
  decideEnrollment,
  type DecisionInput,
  type EnrollmentStatus,
} from '../../../../shared/domain/enrollments/enrollment.ts'

const at = '2026-06-15T12:00:00.000Z'
const courseId = '33333333-3333-4333-8333-333333333333'
const prerequisiteA = '44444444-4444-4444-8444-444444444444'
const prerequisiteB = '55555555-5555-4555-8555-555555555555'
const previousEnrollmentId = '66666666-6666-4666-8666-666666666666'

function course(settings: Partial<CourseSettings> = {}, status: CourseStatus = 'published'): Course {
  return {
    id: courseId,
    title: 'Safety basics',
    description: null,
    shortDescription: '',
    status,
    categoryId: null,
    estimatedMinutes: 30,
    currentVersionId: '77777777-7777-4777-8777-777777777777',
    publishedAt: status === 'draft' ? null : '2026-01-01T00:00:00.000Z',
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    enrollmentCount: 0,
    moduleCount: 2,
    seatsTaken: 0,
    settings: { ...defaultSettings, ...settings },
  }
}

/** An active user, a published course with default settings, no earlier enrollment. */
function input(overrides: Partial<DecisionInput> = {}): DecisionInput {
  return {
    user: { isActive: true },
    course: course(),
    existing: undefined,
    completedCourseIds: new Set(),
    at,
    ...overrides,
  }
}

const existing = (status: EnrollmentStatus) => ({ enrollmentId: previousEnrollmentId, status })
const ms = (iso: string, delta: number) => new Date(Date.parse(iso) + delta).toISOString()

const liveStatuses: EnrollmentStatus[] = ['active', 'completed', 'waitlisted', 'pending_approval']
const endedStatuses: EnrollmentStatus[] = ['dropped', 'expired']

describe('Function: decideEnrollment', () => {
  describe('a new enrollment', () => {
    it('enrolls active, without a seat or reactivation, when an active user meets every guard', () => {
      // Act
      const decision = decideEnrollment(input())

      // Assess
      expect(decision).toEqual({
        kind: 'enroll',
        status: 'active',
        needsSeat: false,
        waitlistIfFull: false,
        reactivates: null,
      })
    })
  })

  describe('what is missing (404)', () => {
    it('refuses with user_not_found when the user is missing, even if the course is missing too', () => {
      // Act
      const decision = decideEnrollment(input({ user: undefined, course: undefined }))

      // Assess
      expect(decision).toEqual({ kind: 'refuse', code: 'user_not_found' })
    })

    it('refuses with course_not_found when the course is missing', () => {
      // Act
      const decision = decideEnrollment(input({ course: undefined }))

      // Assess
      expect(decision).toEqual({ kind: 'refuse', code: 'course_not_found' })
    })
  })

  describe('an earlier enrollment of the same user and course', () => {
    it.each(liveStatuses)('refuses with duplicate (409) when the pair is %s', (status) => {
      // Act
      const decision = decideEnrollment(input({ existing: existing(status) }))

      // Assess
      expect(decision).toEqual({ kind: 'refuse', code: 'duplicate' })
    })

    it.each(liveStatuses)(
      'refuses with duplicate before any 422 guard when the pair is %s and every guard fails',
      (status) => {
        // Prepare
        const closed = course(
          {
            enrollmentClosesAt: ms(at, -1),
            prerequisites: [prerequisiteA],
            requiresSessionSelection: true,
          },
          'archived',
        )

        // Act
        const decision = decideEnrollment(
          input({ user: { isActive: false }, course: closed, existing: existing(status) }),
        )

        // Assess
        expect(decision).toEqual({ kind: 'refuse', code: 'duplicate' })
      },
    )

    it.each(endedStatuses)('reactivates the same record when the pair is %s', (status) => {
      // Act
      const decision = decideEnrollment(input({ existing: existing(status) }))

      // Assess
      expect(decision).toEqual({
        kind: 'enroll',
        status: 'active',
        needsSeat: false,
        waitlistIfFull: false,
        reactivates: previousEnrollmentId,
      })
    })

    it.each(endedStatuses)(
      'reactivates a %s pair into pending_approval when the course requires approval',
      (status) => {
        // Act
        const decision = decideEnrollment(
          input({ course: course({ requiresApproval: true }), existing: existing(status) }),
        )

        // Assess
        expect(decision).toMatchObject({
          kind: 'enroll',
          status: 'pending_approval',
          reactivates: previousEnrollmentId,
        })
      },
    )

    it.each(endedStatuses)('asks for a seat when a %s pair re-enrolls into a limited course', (status) => {
      // Act
      const decision = decideEnrollment(
        input({ course: course({ seatLimit: 4, waitlist: true }), existing: existing(status) }),
      )

      // Assess
      expect(decision).toMatchObject({
        kind: 'enroll',
        needsSeat: true,
        waitlistIfFull: true,
        reactivates: previousEnrollmentId,
      })
    })

    it.each([
      ['user_inactive', { user: { isActive: false } }],
      ['not_published', { course: course({}, 'draft') }],
      ['window_closed', { course: course({ enrollmentClosesAt: ms(at, -1) }) }],
      ['prerequisites_incomplete', { course: course({ prerequisites: [prerequisiteA] }) }],
      ['session_selection_required', { course: course({ requiresSessionSelection: true }) }],
    ] as const)(
      'refuses to reactivate a dropped or expired pair with %s when that guard fails',
      (code, overrides) => {
        for (const status of endedStatuses) {
          // Act
          const decision = decideEnrollment(input({ ...overrides, existing: existing(status) }))

          // Assess
          expect(decision, status).toEqual({ kind: 'refuse', code })
        }
      },
    )
  })

  describe('the user', () => {
    it('refuses with user_inactive when the user is deactivated, before the course guards', () => {
      // Act
      const decision = decideEnrollment(
        input({ user: { isActive: false }, course: course({ enrollmentClosesAt: ms(at, -1) }, 'draft') }),
      )

      // Assess
      expect(decision).toEqual({ kind: 'refuse', code: 'user_inactive' })
    })
  })

  describe('the course status', () => {
    it.each(['draft', 'archived'] as const)('refuses with not_published when the course is %s', (status) => {
      // Act
      const decision = decideEnrollment(input({ course: course({}, status) }))

      // Assess
      expect(decision).toEqual({ kind: 'refuse', code: 'not_published' })
    })

    it('refuses with not_published before checking the window of a draft course', () => {
      // Act
      const decision = decideEnrollment(input({ course: course({ enrollmentOpensAt: ms(at, 1) }, 'draft') }))

      // Assess
      expect(decision).toEqual({ kind: 'refuse', code: 'not_published' })
    })
  })

  describe('the enrollment window', () => {
    it.each([
      ['no bound is set', null, null],
      ['the window opens at this very instant', at, null],
      ['the window closes at this very instant', null, at],
      ['the window opened yesterday and closes tomorrow', ms(at, -86_400_000), ms(at, 86_400_000)],
    ] as const)('enrolls when %s', (_, opensAt, closesAt) => {
      // Prepare
      const windowed = course({ enrollmentOpensAt: opensAt, enrollmentClosesAt: closesAt })

      // Act
      const decision = decideEnrollment(input({ course: windowed }))

      // Assess
      expect(decision.kind).toBe('enroll')
    })

    it.each([
      ['the window opens one millisecond later', ms(at, 1), null],
      ['the window closed one millisecond earlier', null, ms(at, -1)],
      ['the window opens tomorrow and closes next week', ms(at, 86_400_000), ms(at, 7 * 86_400_000)],
      ['the window closed yesterday', ms(at, -7 * 86_400_000), ms(at, -86_400_000)],
    ] as const)('refuses with window_closed when %s', (_, opensAt, closesAt) => {
      // Prepare
      const windowed = course({ enrollmentOpensAt: opensAt, enrollmentClosesAt: closesAt })

      // Act
      const decision = decideEnrollment(input({ course: windowed }))

      // Assess
      expect(decision).toEqual({ kind: 'refuse', code: 'window_closed' })
    })

    it('refuses with window_closed before checking prerequisites', () => {
      // Act
      const decision = decideEnrollment(
        input({ course: course({ enrollmentClosesAt: ms(at, -1), prerequisites: [prerequisiteA] }) }),
      )

      // Assess
      expect(decision).toEqual({ kind: 'refuse', code: 'window_closed' })
    })
  })

  describe('prerequisites', () => {
    it('enrolls when every prerequisite course is completed', () => {
      // Act
      const decision = decideEnrollment(
        input({
          course: course({ prerequisites: [prerequisiteA, prerequisiteB] }),
          completedCourseIds: new Set([prerequisiteA, prerequisiteB]),
        }),
      )

      // Assess
      expect(decision.kind).toBe('enroll')
    })

    it('refuses with prerequisites_incomplete when one of several prerequisites is not completed', () => {
      // Act
      const decision = decideEnrollment(
        input({
          course: course({ prerequisites: [prerequisiteA, prerequisiteB] }),
          completedCourseIds: new Set([prerequisiteA]),
        }),
      )

      // Assess
      expect(decision).toEqual({ kind: 'refuse', code: 'prerequisites_incomplete' })
    })

    it('refuses with prerequisites_incomplete before asking for a session selection', () => {
      // Act
      const decision = decideEnrollment(
        input({ course: course({ prerequisites: [prerequisiteA], requiresSessionSelection: true }) }),
      )

      // Assess
      expect(decision).toEqual({ kind: 'refuse', code: 'prerequisites_incomplete' })
    })
  })

  describe('instructor-led series', () => {
    it('refuses with session_selection_required even when the course also requires approval', () => {
      // Act
      const decision = decideEnrollment(
        input({ course: course({ requiresSessionSelection: true, requiresApproval: true }) }),
      )

      // Assess
      expect(decision).toEqual({ kind: 'refuse', code: 'session_selection_required' })
    })
  })

  describe('approval and seats', () => {
    it('enrolls pending_approval without taking a seat when the course requires approval', () => {
      // Act
      const decision = decideEnrollment(
        input({ course: course({ requiresApproval: true, seatLimit: 1, waitlist: true }) }),
      )

      // Assess
      expect(decision).toEqual({
        kind: 'enroll',
        status: 'pending_approval',
        needsSeat: false,
        waitlistIfFull: false,
        reactivates: null,
      })
    })

    it('asks for a seat and waitlists when full when the course has a seat limit and a waitlist', () => {
      // Act
      const decision = decideEnrollment(input({ course: course({ seatLimit: 4, waitlist: true }) }))

      // Assess
      expect(decision).toEqual({
        kind: 'enroll',
        status: 'active',
        needsSeat: true,
        waitlistIfFull: true,
        reactivates: null,
      })
    })

    it('asks for a seat and refuses when full when the course has a seat limit and no waitlist', () => {
      // Act
      const decision = decideEnrollment(input({ course: course({ seatLimit: 4, waitlist: false }) }))

      // Assess
      expect(decision).toMatchObject({
        kind: 'enroll',
        status: 'active',
        needsSeat: true,
        waitlistIfFull: false,
      })
    })

    it('asks for a seat when the seat limit is zero, so the store finds the course full', () => {
      // Act
      const decision = decideEnrollment(input({ course: course({ seatLimit: 0 }) }))

      // Assess
      expect(decision).toMatchObject({ kind: 'enroll', needsSeat: true, waitlistIfFull: false })
    })

    it('needs no seat when the course has a waitlist but no seat limit', () => {
      // Act
      const decision = decideEnrollment(input({ course: course({ seatLimit: null, waitlist: true }) }))

      // Assess
      expect(decision).toMatchObject({ kind: 'enroll', status: 'active', needsSeat: false })
    })
  })
})
