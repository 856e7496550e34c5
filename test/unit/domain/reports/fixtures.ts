import type { Enrollment, QuizAttempt } from '../../../../shared/domain/enrollments/enrollment.ts'

export function enrollment(over: Partial<Enrollment> = {}): Enrollment {
  return {
    id: '00000000-0000-4000-8000-000000000001',
    userId: 'u1',
    courseId: 'c1',
    status: 'active',
    dueDate: null,
    completedAt: null,
    source: 'native',
    channel: 'api',
    createdAt: '2026-01-01T00:00:00.000Z',
    enrolledAt: '2026-01-01T00:00:00.000Z',
    startedAt: null,
    updatedAt: '2026-01-01T00:00:00.000Z',
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

export const attempt = (scaled: number, passed: boolean): QuizAttempt => ({
  moduleId: 'm1',
  raw: scaled * 100,
  max: 100,
  scaled,
  passed,
  gradedAt: '2026-01-02T00:00:00.000Z',
})
