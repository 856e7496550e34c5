import type { Enrollment, QuizAttempt } from '../../../../shared/domain/enrollments/enrollment.ts'
import { anEnrollment } from '../../../helpers/builders.ts'

export function enrollment(over: Partial<Enrollment> = {}): Enrollment {
  return anEnrollment({
    id: '00000000-0000-4000-8000-000000000001',
    userId: 'u1',
    courseId: 'c1',
    ...over,
  })
}

export const attempt = (scaled: number, passed: boolean): QuizAttempt => ({
  moduleId: 'm1',
  raw: scaled * 100,
  max: 100,
  scaled,
  passed,
  gradedAt: '2026-01-02T00:00:00.000Z',
})
