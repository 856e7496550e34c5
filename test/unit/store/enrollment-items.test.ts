import { describe, expect, it } from 'vitest'
import type { TenantContext } from '../../../shared/domain/tenants/tenant.ts'
import {
  enrollmentItem,
  toEnrollment,
  toEnrollmentCounters,
  toPair,
} from '../../../shared/store/enrollments/enrollment-items.ts'
import { MalformedItem } from '../../../shared/store/core/store-errors.ts'
import { aCompletedEnrollment, anEnrollment } from '../../helpers/builders.ts'

const tenant: TenantContext = { id: '11111111-1111-4111-8111-111111111111', plan: 'growth' }
const at = '2026-03-01T10:00:00.000Z'

const enrollment = aCompletedEnrollment(
  {
    id: 'e-1',
    language: 'fr',
    modules: {
      'm-1': {
        status: 'completed',
        score: null,
        timeSpentSeconds: 600,
        startedAt: at,
        completedAt: at,
        lastActivityAt: at,
      },
    },
    quizAttempts: [{ moduleId: 'm-1', raw: 9, max: 10, scaled: 0.9, passed: true, gradedAt: at }],
  },
  at,
)

const catchError = (f: () => unknown): unknown => {
  try {
    f()
  } catch (err) {
    return err
  }
  return undefined
}

describe('Function: toEnrollment', () => {
  it('reads back what enrollmentItem writes', () => {
    expect(toEnrollment(enrollmentItem(tenant, enrollment))).toEqual(enrollment)
  })

  it('stores no null, zero or empty attribute of a new enrollment, and reads it back whole', () => {
    // Prepare
    const fresh = anEnrollment({ id: 'e-2', holdsSeat: false })

    // Act
    const item = Object.fromEntries(
      Object.entries(enrollmentItem(tenant, fresh)).filter(([, value]) => value !== undefined),
    )

    // Assess
    expect(Object.entries(item).filter(([, value]) => value === null)).toEqual([])
    for (const attr of ['progress_percent', 'time_spent_seconds', 'holds_seat', 'modules', 'quiz_attempts'])
      expect(item).not.toHaveProperty(attr)
    expect(toEnrollment(item)).toEqual(fresh)
  })

  it('stores a module progress without its null attributes', () => {
    // Prepare
    const started = anEnrollment({
      modules: {
        'm-1': {
          status: 'in_progress',
          score: null,
          timeSpentSeconds: 0,
          startedAt: at,
          completedAt: null,
          lastActivityAt: null,
        },
      },
    })

    // Act
    const item = enrollmentItem(tenant, started)

    // Assess
    expect(JSON.parse(JSON.stringify(item.modules))).toEqual({
      'm-1': { status: 'in_progress', started_at: at },
    })
    expect(toEnrollment(item)).toEqual(started)
  })

  it('reads the attributes older items lack as their defaults', () => {
    // Prepare
    const item = enrollmentItem(tenant, enrollment)
    for (const attr of ['language', 'progress_percent', 'holds_seat', 'modules', 'quiz_attempts', 'score'])
      delete item[attr]

    // Act
    const read = toEnrollment(item)

    // Assess
    expect(read).toMatchObject({
      language: 'en',
      progressPercent: 0,
      holdsSeat: false,
      modules: {},
      quizAttempts: [],
      score: null,
    })
  })

  it('fails naming the entity, its key and the attribute, never a value', () => {
    // Act
    const err = catchError(() => toEnrollment({ ...enrollmentItem(tenant, enrollment), status: 'paused' }))

    // Assess
    expect(err).toBeInstanceOf(MalformedItem)
    expect(
      (err as Error).message.startsWith(
        `Malformed enrollment item (T#${tenant.id} / ENROLL#e-1): status: expected `,
      ),
    ).toBe(true)
    expect((err as Error).message).not.toContain('paused')
  })

  it('fails on a malformed module progress, naming its path', () => {
    // Prepare
    const item = {
      ...enrollmentItem(tenant, enrollment),
      modules: { 'm-1': { status: 'completed', score: '9' } },
    }

    // Act
    const err = catchError(() => toEnrollment(item))

    // Assess
    expect(err).toBeInstanceOf(MalformedItem)
    expect((err as Error).message).toMatch(/: modules\.m-1\.score: /)
    expect((err as Error).message).not.toContain("'9'")
  })
})

describe('Function: toPair', () => {
  it('reads the pair guard, and refuses one without its enrollment', () => {
    const pair = { pk: `T#${tenant.id}`, sk: 'ENRPAIR#u-1#c-1', user_id: 'u-1', course_id: 'c-1' }
    expect(toPair({ ...pair, enrollment_id: 'e-1', status: 'dropped' })).toEqual({
      userId: 'u-1',
      courseId: 'c-1',
      enrollmentId: 'e-1',
      status: 'dropped',
    })
    expect(catchError(() => toPair({ ...pair, status: 'dropped' }))).toBeInstanceOf(MalformedItem)
  })
})

describe('Function: toEnrollmentCounters', () => {
  it('reads absent counters (and an absent item) as zero, ignoring other entities’ counters', () => {
    expect(
      toEnrollmentCounters({
        pk: `T#${tenant.id}`,
        sk: 'COUNTERS',
        users_active: 4,
        enrollments_total: 3,
        enrollments_status_active: 2,
      }),
    ).toEqual({
      total: 3,
      completions: 0,
      byStatus: { active: 2, completed: 0, dropped: 0, expired: 0, waitlisted: 0, pending_approval: 0 },
    })
    expect(toEnrollmentCounters(undefined).total).toBe(0)
  })
})
