/**
 * The events API's count of a range (decision 0053): whole days, hours and minutes from counters,
 * and only the two partial minutes at the edges from the events themselves.
 */
import { describe, expect, it } from 'vitest'
import { bucketStart, bucketsOf, countPlan } from '../../../shared/domain/webhooks/event-count-plan.ts'

describe('Rule: counting the events of a range', () => {
  it('counts an event in its day, hour and minute', () => {
    expect(bucketsOf('2026-11-27T21:14:05.123Z')).toEqual([
      'D#2026-11-27',
      'H#2026-11-27T21',
      'M#2026-11-27T21:14',
    ])
    expect(bucketStart('D#2026-11-27')).toBe(Date.parse('2026-11-27T00:00:00.000Z'))
    expect(bucketStart('H#2026-11-27T21')).toBe(Date.parse('2026-11-27T21:00:00.000Z'))
    expect(bucketStart('M#2026-11-27T21:14')).toBe(Date.parse('2026-11-27T21:14:00.000Z'))
  })

  it('reads whole days between the edges, whole hours and minutes only at the edges', () => {
    const plan = countPlan('2026-11-20T10:15:30.000Z', '2026-11-25T08:05:10.000Z')

    expect(plan.runs).toEqual([
      { from: 'D#2026-11-21', to: 'D#2026-11-24' },
      { from: 'H#2026-11-20T11', to: 'H#2026-11-20T23' },
      { from: 'H#2026-11-25T00', to: 'H#2026-11-25T07' },
      { from: 'M#2026-11-20T10:16', to: 'M#2026-11-20T10:59' },
      { from: 'M#2026-11-25T08:00', to: 'M#2026-11-25T08:04' },
    ])
    expect(plan.partials).toEqual([
      { after: '2026-11-20T10:15:30.000Z', before: '2026-11-20T10:16:00.000Z' },
      { after: '2026-11-25T08:04:59.999Z', before: '2026-11-25T08:05:10.000Z' },
    ])
  })

  it('has no upper edge without an upper bound: every later day', () => {
    const plan = countPlan('2026-10-28T21:14:43.500Z')

    expect(plan.runs).toEqual([
      { from: 'D#2026-10-29' },
      { from: 'H#2026-10-28T22', to: 'H#2026-10-28T23' },
      { from: 'M#2026-10-28T21:15', to: 'M#2026-10-28T21:59' },
    ])
    expect(plan.partials).toEqual([{ after: '2026-10-28T21:14:43.500Z', before: '2026-10-28T21:15:00.000Z' }])
  })

  it('counts a range inside one minute from the events, and needs no upper partial on a whole minute', () => {
    expect(countPlan('2026-11-20T10:15:30.000Z', '2026-11-20T10:15:50.000Z')).toEqual({
      runs: [],
      partials: [{ after: '2026-11-20T10:15:30.000Z', before: '2026-11-20T10:15:50.000Z' }],
    })
    expect(countPlan('2026-11-20T10:15:30.000Z', '2026-11-20T10:18:00.000Z')).toEqual({
      runs: [{ from: 'M#2026-11-20T10:16', to: 'M#2026-11-20T10:17' }],
      partials: [{ after: '2026-11-20T10:15:30.000Z', before: '2026-11-20T10:16:00.000Z' }],
    })
  })
})
