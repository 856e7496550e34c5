/**
 * Domain objects for tests, built whole: a test names only the fields its behaviour depends on.
 * Ids and e-mails are new on every call, so seeded rows never collide; a test that asserts keys
 * names its ids (`aUser({ id: 'u1' })`).
 */
import { randomUUID } from 'node:crypto'
import type { Enrollment } from '../../shared/domain/enrollments/enrollment.ts'
import type { User } from '../../shared/domain/users/user.ts'

/** The instant builders stamp when a test does not say: fixed, so expectations can name it. */
export const BUILT_AT = '2026-01-01T00:00:00.000Z'

/**
 * The instant `n` minutes after BUILT_AT: distinct, ordered times for data arranged through an
 * `at` parameter, where a test would otherwise pause between calls.
 */
export const minute = (n: number): string => new Date(Date.parse(BUILT_AT) + n * 60_000).toISOString()

/**
 * An active internal learner with no groups, roles or sign-in; `updatedAt` follows `createdAt`
 * unless given.
 *
 * @example aUser({ role: 'owner', createdAt: '2026-03-01T10:00:00.000Z' })
 */
export function aUser(over: Partial<User> = {}): User {
  const id = over.id ?? randomUUID()
  const createdAt = over.createdAt ?? BUILT_AT
  return {
    id,
    email: `ada-${randomUUID().slice(0, 13)}@example.com`,
    firstName: 'Ada',
    lastName: 'Lovelace',
    role: 'learner',
    customRoleIds: [],
    isActive: true,
    userType: 'internal',
    externalId: null,
    customFields: {},
    locale: 'en',
    groupIds: [],
    lastLoginAt: null,
    createdAt,
    updatedAt: createdAt,
    ...over,
  }
}

/**
 * An active enrollment on a clean slate, as the engine creates it at `at` (its creation, enrollment
 * and update times), with `over` on top.
 *
 * @example anEnrollment({ status: 'completed', completedAt: '2026-02-01T00:00:00.000Z' })
 */
export function anEnrollment(over: Partial<Enrollment> = {}, at = BUILT_AT): Enrollment {
  return {
    id: randomUUID(),
    userId: randomUUID(),
    courseId: randomUUID(),
    status: 'active',
    dueDate: null,
    completedAt: null,
    source: 'native',
    channel: 'api',
    createdAt: at,
    enrolledAt: at,
    startedAt: null,
    updatedAt: at,
    progressPercent: 0,
    score: null,
    passFail: null,
    certificateId: null,
    certificateNumber: null,
    certificateExpiresAt: null,
    language: 'en',
    timeSpentSeconds: 0,
    lastActivityAt: null,
    holdsSeat: false,
    accessExpiresAt: null,
    modules: {},
    quizAttempts: [],
    scoresLinked: false,
    ...over,
  }
}

/**
 * An enrollment finished at `at`: started and last active then, passed with a score, time spent
 * and a certificate, so that the attributes a fresh enrollment leaves empty are all set.
 *
 * @example aCompletedEnrollment({ source: 'import' }, '2026-03-01T10:00:00.000Z')
 */
export function aCompletedEnrollment(over: Partial<Enrollment> = {}, at = BUILT_AT): Enrollment {
  return anEnrollment(
    {
      status: 'completed',
      completedAt: at,
      startedAt: at,
      lastActivityAt: at,
      progressPercent: 100,
      score: 92.5,
      passFail: 'pass',
      timeSpentSeconds: 600,
      certificateId: 'cert-1',
      certificateNumber: 'N-1',
      ...over,
    },
    at,
  )
}
