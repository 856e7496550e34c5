/**
 * Course performance (document 001, "Reports" rules). A course's figures are sums over its
 * enrollments (a tally), so they can be kept as an aggregate moved by each enrollment write
 * (tallyDelta) or summed from the enrollments of a period; the row divides them.
 *
 * - completion_rate_percent: completed enrollments over all enrollments;
 * - average_score: the mean, over enrollments with a passing quiz attempt, of the best passing
 *   attempt's score (percent, as quizzes report it);
 * - pass_rate_percent: enrollments with a passing attempt over enrollments with at least one
 *   graded attempt (null when none);
 * - average_time_to_complete_seconds: the mean time from enrollment to completion;
 * - drop_off_rate_percent: dropped plus expired enrollments over all enrollments.
 * Rates and means have two decimals (the time is whole seconds); over no enrollment they are null.
 */
import type { Enrollment, QuizAttempt } from '../enrollments/enrollment.ts'
import { meanOf, percentOf } from './numbers.ts'
import type { CoursePerformanceRow } from './rows.ts'

export interface CourseTally {
  readonly enrollments: number
  readonly completions: number
  readonly dropOffs: number
  readonly graded: number
  readonly passed: number
  readonly bestScoreSum: number
  readonly completeSecondsSum: number
}

export const tallyFields = [
  'enrollments',
  'completions',
  'dropOffs',
  'graded',
  'passed',
  'bestScoreSum',
  'completeSecondsSum',
] as const satisfies readonly (keyof CourseTally)[]

export const emptyTally: CourseTally = {
  enrollments: 0,
  completions: 0,
  dropOffs: 0,
  graded: 0,
  passed: 0,
  bestScoreSum: 0,
  completeSecondsSum: 0,
}

/** The best passing attempt's score in percent (two decimals), or null when none passed. */
export function bestPassingScore(attempts: readonly QuizAttempt[]): number | null {
  const passing = attempts.filter((a) => a.passed).map((a) => Math.round(a.scaled * 10_000) / 100)
  return passing.length === 0 ? null : Math.max(...passing)
}

/** What one enrollment's share of its course's tally depends on. */
export type Tallied = Pick<Enrollment, 'status' | 'completedAt' | 'enrolledAt' | 'quizAttempts'>

/** One enrollment's share of its course's tally. */
export function tallyOf(e: Tallied): CourseTally {
  const best = bestPassingScore(e.quizAttempts)
  const done = e.completedAt !== null
  return {
    enrollments: 1,
    completions: done ? 1 : 0,
    dropOffs: e.status === 'dropped' || e.status === 'expired' ? 1 : 0,
    graded: e.quizAttempts.length > 0 ? 1 : 0,
    passed: best === null ? 0 : 1,
    bestScoreSum: best ?? 0,
    completeSecondsSum:
      e.completedAt === null
        ? 0
        : Math.max(0, Math.round((Date.parse(e.completedAt) - Date.parse(e.enrolledAt)) / 1000)),
  }
}

/** Sums (or differences) kept to two decimals, so float noise never accumulates. */
export function addTallies(a: CourseTally, b: CourseTally, sign: 1 | -1 = 1): CourseTally {
  const f = (k: keyof CourseTally) => Math.round((a[k] + sign * b[k]) * 100) / 100
  return {
    enrollments: f('enrollments'),
    completions: f('completions'),
    dropOffs: f('dropOffs'),
    graded: f('graded'),
    passed: f('passed'),
    bestScoreSum: f('bestScoreSum'),
    completeSecondsSum: f('completeSecondsSum'),
  }
}

/** What a write moves a course's tally by: the new state's share less the old one's. */
export function tallyDelta(before: Tallied | undefined, after: Tallied): CourseTally {
  return addTallies(tallyOf(after), before ? tallyOf(before) : emptyTally, -1)
}

export const sumTallies = (list: readonly Tallied[]): CourseTally =>
  list.reduce((t, e) => addTallies(t, tallyOf(e)), emptyTally)

export function performanceRow(course: { id: string; title: string }, t: CourseTally): CoursePerformanceRow {
  const completeMean = meanOf(t.completeSecondsSum, t.completions)
  return {
    course_id: course.id,
    course_title: course.title,
    total_enrollments: t.enrollments,
    completions: t.completions,
    completion_rate_percent: percentOf(t.completions, t.enrollments),
    average_score: meanOf(t.bestScoreSum, t.passed),
    pass_rate_percent: percentOf(t.passed, t.graded),
    average_time_to_complete_seconds: completeMean === null ? null : Math.round(completeMean),
    drop_off_rate_percent: percentOf(t.dropOffs, t.enrollments),
  }
}
