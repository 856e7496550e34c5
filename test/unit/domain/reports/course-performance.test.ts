import { describe, expect, it } from 'vitest'
import {
  bestPassingScore,
  emptyTally,
  performanceRow,
  sumTallies,
  tallyDelta,
  tallyOf,
} from '../../../../shared/domain/reports/course-performance.ts'
import { attempt, enrollment } from './fixtures.ts'

const course = { id: 'c1', title: 'Safety' }

describe('course performance maths', () => {
  it('takes the best passing attempt of a learner with several attempts, ignoring failed ones', () => {
    expect(bestPassingScore([attempt(0.95, false), attempt(0.72, true), attempt(0.8567, true)])).toBe(85.67)
    expect(bestPassingScore([attempt(0.5, false)])).toBeNull()
    expect(bestPassingScore([])).toBeNull()
  })

  it('computes every figure of a hand-counted course', () => {
    // Five enrollments: two completed (one after 3 attempts), one active failing, one dropped, one expired.
    const list = [
      enrollment({
        status: 'completed',
        enrolledAt: '2026-01-01T00:00:00.000Z',
        completedAt: '2026-01-01T01:00:00.000Z', // 3,600 s
        quizAttempts: [attempt(0.6, false), attempt(0.75, true), attempt(0.9, true)], // best 90
      }),
      enrollment({
        status: 'completed',
        enrolledAt: '2026-01-01T00:00:00.000Z',
        completedAt: '2026-01-01T02:00:01.000Z', // 7,201 s
        quizAttempts: [attempt(0.8, true)], // best 80
      }),
      enrollment({ status: 'active', quizAttempts: [attempt(0.4, false)] }), // graded, not passed
      enrollment({ status: 'dropped' }),
      enrollment({ status: 'expired' }),
    ]
    expect(performanceRow(course, sumTallies(list))).toEqual({
      course_id: 'c1',
      course_title: 'Safety',
      total_enrollments: 5,
      completions: 2,
      completion_rate_percent: 40,
      average_score: 85, // (90 + 80) / 2
      pass_rate_percent: 66.67, // 2 of 3 graded
      average_time_to_complete_seconds: 5401, // (3600 + 7201) / 2 = 5400.5, rounded
      drop_off_rate_percent: 40, // dropped + expired = 2 of 5
    })
  })

  it('answers null rates and means for a course without enrollments or without graded attempts', () => {
    expect(performanceRow(course, emptyTally)).toEqual({
      course_id: 'c1',
      course_title: 'Safety',
      total_enrollments: 0,
      completions: 0,
      completion_rate_percent: null,
      average_score: null,
      pass_rate_percent: null,
      average_time_to_complete_seconds: null,
      drop_off_rate_percent: null,
    })
    const ungraded = performanceRow(course, sumTallies([enrollment(), enrollment({ status: 'dropped' })]))
    expect(ungraded.pass_rate_percent).toBeNull()
    expect(ungraded.average_score).toBeNull()
    expect(ungraded.completion_rate_percent).toBe(0)
    expect(ungraded.drop_off_rate_percent).toBe(50)
  })

  it('rounds rates to two decimals', () => {
    const list = [enrollment({ status: 'completed', completedAt: '2026-01-01T00:00:00.000Z' })]
    list.push(enrollment(), enrollment())
    expect(performanceRow(course, sumTallies(list)).completion_rate_percent).toBe(33.33)
  })

  it('moves a tally by the difference a write makes, so an aggregate equals the sum of its enrollments', () => {
    const before = enrollment({ quizAttempts: [attempt(0.5, false)] })
    const after = enrollment({
      status: 'completed',
      completedAt: '2026-01-01T00:10:00.000Z',
      quizAttempts: [attempt(0.5, false), attempt(0.7, true)],
    })
    expect(tallyDelta(before, after)).toEqual({
      enrollments: 0,
      completions: 1,
      dropOffs: 0,
      graded: 0,
      passed: 1,
      bestScoreSum: 70,
      completeSecondsSum: 600,
    })
    expect(tallyDelta(undefined, before)).toEqual(tallyOf(before))
    // A reactivation (clean slate) takes back what the dropped record counted.
    const dropped = enrollment({ status: 'dropped' })
    expect(tallyDelta(dropped, enrollment())).toEqual({ ...emptyTally, dropOffs: -1 })
  })
})
