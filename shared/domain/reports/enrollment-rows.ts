/** Rows of the completions and enrollments reports: an enrollment and its course's title. */
import type { Enrollment } from '../enrollments/enrollment.ts'
import type { CompletionRow, EnrollmentRow } from './rows.ts'

/** What a completion row is made of (an export reads only these attributes). */
export type CompletionSource = Pick<
  Enrollment,
  | 'id'
  | 'userId'
  | 'courseId'
  | 'completedAt'
  | 'language'
  | 'score'
  | 'passFail'
  | 'timeSpentSeconds'
  | 'certificateId'
>

/** What an enrollment row is made of. */
export type EnrollmentSource = Pick<
  Enrollment,
  'id' | 'userId' | 'courseId' | 'status' | 'enrolledAt' | 'dueDate' | 'completedAt' | 'source' | 'language'
>

/** @throws Error when the enrollment is not completed (the listing reads completions only) */
export function completionRow(e: CompletionSource, courseTitle: string): CompletionRow {
  if (e.completedAt === null) throw new Error(`Enrollment ${e.id} is not a completion`)
  return {
    enrollment_id: e.id,
    user_id: e.userId,
    course_id: e.courseId,
    course_title: courseTitle,
    completed_at: e.completedAt,
    language: e.language,
    score: e.score,
    pass_fail: e.passFail,
    time_spent_seconds: e.timeSpentSeconds,
    certificate_id: e.certificateId,
  }
}

export function enrollmentRow(e: EnrollmentSource, courseTitle: string): EnrollmentRow {
  return {
    enrollment_id: e.id,
    user_id: e.userId,
    course_id: e.courseId,
    course_title: courseTitle,
    status: e.status,
    enrolled_at: e.enrolledAt,
    due_date: e.dueDate,
    completed_at: e.completedAt,
    source: e.source,
    language: e.language,
  }
}

/** The completions report's pass_fail filter and score order (a missing score sorts last ascending). */
export function compareScore(a: Enrollment, b: Enrollment): number {
  if (a.score === b.score) return a.id < b.id ? -1 : a.id > b.id ? 1 : 0
  if (a.score === null) return 1
  if (b.score === null) return -1
  return a.score - b.score
}
