/** An active enrollment on a clean slate, as the engine creates it at `at`, with `over` on top. */
import type { Enrollment } from '../../shared/domain/enrollments/enrollment.ts'

export function enrollmentFixture(
  over: Partial<Enrollment> = {},
  at = '2026-01-01T00:00:00.000Z',
): Enrollment {
  return {
    id: 'e-1',
    userId: 'u-1',
    courseId: 'c-1',
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
    ...over,
  }
}
