import { describe, expect, it } from 'vitest'
import {
  AGS_CLAIM,
  AGS_SCORE_SCOPE,
  lineItemOf,
  mayHaveLink,
  retryDelaySeconds,
  scoreAnswerOf,
  scoreBody,
  scoreMark,
  scoresUrl,
  scoreTriggerOf,
  scoreUpdateOf,
} from '../../../shared/domain/lti/ags.ts'
import { newEvent } from '../../../shared/domain/events.ts'

const ids = { enrollmentId: 'e-1', userId: 'u-1', courseId: 'c-1' }
const at = '2026-11-27T10:00:00.000Z'

describe('AGS: the endpoint claim', () => {
  it('keeps the line item of a claim whose scope lists the score scope', () => {
    // Prepare
    const claim = { scope: [AGS_SCORE_SCOPE], lineitem: 'https://lms.example.com/lineitems/7?course=3' }

    // Act + Assess
    expect(lineItemOf({ [AGS_CLAIM]: claim })).toBe('https://lms.example.com/lineitems/7?course=3')
  })

  it('keeps none without the claim, without a lineitem, without the score scope, or with a URL that is not http(s)', () => {
    expect(lineItemOf({})).toBeUndefined()
    expect(lineItemOf({ [AGS_CLAIM]: { scope: [AGS_SCORE_SCOPE] } })).toBeUndefined()
    expect(lineItemOf({ [AGS_CLAIM]: { lineitem: 'https://a.example/li' } })).toBeUndefined()
    expect(
      lineItemOf({ [AGS_CLAIM]: { scope: [AGS_SCORE_SCOPE], lineitem: 'javascript:alert(1)' } }),
    ).toBeUndefined()
    expect(
      lineItemOf({
        [AGS_CLAIM]: { scope: [AGS_SCORE_SCOPE], lineitem: `https://a.example/${'x'.repeat(2100)}` },
      }),
    ).toBeUndefined()
  })

  it("posts to the line item's /scores, its query kept", () => {
    expect(scoresUrl('https://lms.example.com/lineitems/7?course=3')).toBe(
      'https://lms.example.com/lineitems/7/scores?course=3',
    )
    expect(scoresUrl('https://lms.example.com/lineitems/7/')).toBe(
      'https://lms.example.com/lineitems/7/scores',
    )
  })
})

describe('AGS: scores from events', () => {
  it('makes an in-progress score of a module completion, and a completed one of the enrollment completion', () => {
    // Prepare
    const module = newEvent('module.completed', { ...ids, moduleId: 'm', progressPercent: 50 }, at)
    const completed = newEvent('enrollment.completed', { ...ids, completedAt: at }, at)

    // Act
    const progress = scoreTriggerOf(module)
    const done = scoreTriggerOf(completed)

    // Assess
    expect(progress).toEqual({ kind: 'progress', enrollmentId: 'e-1', at, percent: 50 })
    expect(done).toEqual({ kind: 'completed', enrollmentId: 'e-1', at })
    expect(scoreUpdateOf(done!, 82.5)).toEqual({ at, completed: true, scoreGiven: 82.5 })
    expect(scoreUpdateOf(done!, null)).toEqual({ at, completed: true, scoreGiven: 100 })
  })

  it('makes none of the module completion that completed the enrollment, of events saved without progress, or of other events', () => {
    expect(scoreTriggerOf(newEvent('module.completed', { ...ids, progressPercent: 100 }, at))).toBeUndefined()
    expect(scoreTriggerOf(newEvent('module.completed', { ...ids }, at))).toBeUndefined()
    expect(scoreTriggerOf(newEvent('enrollment.dropped', ids, at))).toBeUndefined()
  })

  it('orders scores by time, and a completion above an in-progress of the same time', () => {
    // Prepare
    const earlier = scoreMark({ at: '2026-11-27T09:59:59.999Z', completed: true, scoreGiven: 100 })
    const progress = scoreMark({ at, completed: false, scoreGiven: 50 })
    const completion = scoreMark({ at, completed: true, scoreGiven: 100 })

    // Assess
    expect([completion, progress, earlier].sort()).toEqual([earlier, progress, completion])
  })

  it('writes the score body AGS 2.0 describes', () => {
    expect(scoreBody('sub-1', { at, completed: false, scoreGiven: 33 })).toEqual({
      userId: 'sub-1',
      scoreGiven: 33,
      scoreMaximum: 100,
      activityProgress: 'InProgress',
      gradingProgress: 'Pending',
      timestamp: at,
    })
    expect(scoreBody('sub-1', { at, completed: true, scoreGiven: 90 })).toMatchObject({
      activityProgress: 'Completed',
      gradingProgress: 'FullyGraded',
    })
  })
})

describe('AGS: what the score service answered', () => {
  it('takes 2xx as posted, 401 as a stale token, 408, 429 and 5xx as worth a retry, other 4xx as refused', () => {
    expect([200, 201, 204].map(scoreAnswerOf)).toEqual(['posted', 'posted', 'posted'])
    expect(scoreAnswerOf(401)).toBe('token_stale')
    expect([408, 429, 500, 502, 503].map(scoreAnswerOf)).toEqual(Array(5).fill('retry'))
    expect([400, 403, 404, 410, 422].map(scoreAnswerOf)).toEqual(Array(5).fill('refused'))
  })

  it('waits as long as Retry-After asks in seconds, never less than configured, at most 15 minutes', () => {
    expect(retryDelaySeconds(30, undefined)).toBe(30)
    expect(retryDelaySeconds(30, '120')).toBe(120)
    expect(retryDelaySeconds(30, '5')).toBe(30)
    expect(retryDelaySeconds(30, '86400')).toBe(900)
    expect(retryDelaySeconds(30, 'Wed, 21 Oct 2026 07:28:00 GMT')).toBe(30)
    expect(retryDelaySeconds(30, ['120', '60'])).toBe(30)
  })
})

describe('AGS: which events the relay looks up a link for', () => {
  it('skips only an event whose enrollment said it has no link; an item that does not say is looked up', () => {
    expect(mayHaveLink(false)).toBe(false)
    expect(mayHaveLink(true)).toBe(true)
    expect(mayHaveLink(null)).toBe(true)
  })
})
