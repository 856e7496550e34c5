import { describe, expect, it } from 'vitest'
import {
  daysOf,
  hourDeltas,
  rangeParts,
  sumHours,
} from '../../../../shared/domain/reports/range-histograms.ts'
import { enrollment } from './fixtures.ts'

const at = (iso: string) => Date.parse(iso)

describe('Hour histograms of the date-range totals (decision 0026)', () => {
  it('counts an enrollment in its enrollment hour by status, a completion in its hour by pass/fail', () => {
    const e = enrollment({
      status: 'completed',
      enrolledAt: '2026-03-10T10:15:00.000Z',
      completedAt: '2026-03-11T23:59:59.999Z',
      passFail: 'pass',
    })
    expect(hourDeltas('enrolled', [{ before: undefined, after: e }])).toEqual(
      new Map([['2026-03-10', { h10_completed: 1 }]]),
    )
    expect(hourDeltas('completed', [{ before: undefined, after: e }])).toEqual(
      new Map([['2026-03-11', { h23_pass: 1 }]]),
    )
    expect(hourDeltas('completed', [{ before: undefined, after: { ...e, completedAt: null } }])).toEqual(
      new Map(),
    )
  })

  it('moves a status change within its hour, a reactivation to its new day, and drops what cancels out', () => {
    const before = enrollment({ status: 'active', enrolledAt: '2026-03-10T10:15:00.000Z' })
    expect(hourDeltas('enrolled', [{ before, after: { ...before, status: 'dropped' } }])).toEqual(
      new Map([['2026-03-10', { h10_active: -1, h10_dropped: 1 }]]),
    )
    expect(
      hourDeltas('enrolled', [
        {
          before: { ...before, status: 'dropped' },
          after: { ...before, enrolledAt: '2026-04-01T00:00:00.000Z' },
        },
      ]),
    ).toEqual(
      new Map([
        ['2026-03-10', { h10_dropped: -1 }],
        ['2026-04-01', { h00_active: 1 }],
      ]),
    )
    expect(hourDeltas('enrolled', [{ before, after: { ...before, dueDate: '2026-05-01' } }])).toEqual(
      new Map(),
    )
  })

  it('splits a range with exclusive bounds into whole hours and exact edges', () => {
    expect(rangeParts('2026-03-10T10:30:00.000Z', '2026-03-10T13:15:00.000Z')).toEqual({
      hours: { from: at('2026-03-10T11:00:00.000Z'), to: at('2026-03-10T13:00:00.000Z') },
      edges: [
        { after: '2026-03-10T10:30:00.000Z', before: '2026-03-10T11:00:00.000Z' },
        { after: '2026-03-10T12:59:59.999Z', before: '2026-03-10T13:15:00.000Z' },
      ],
    })
    // A bound on the hour: nothing of the hour ending there is left out.
    expect(rangeParts(undefined, '2026-03-10T13:00:00.000Z')).toEqual({
      hours: { from: -Infinity, to: at('2026-03-10T13:00:00.000Z') },
      edges: [],
    })
    expect(rangeParts('2026-03-10T10:10:00.000Z', '2026-03-10T10:50:00.000Z')).toEqual({
      hours: null,
      edges: [{ after: '2026-03-10T10:10:00.000Z', before: '2026-03-10T10:50:00.000Z' }],
    })
  })

  it('sums the whole hours of a bucket or of all, and names the days to read', () => {
    const days = new Map([
      ['2026-03-10', { day: '2026-03-10', h10_active: 2, h11_active: 1, h11_dropped: 4, h23_active: 1 }],
      ['2026-03-11', { h00_active: 5 }],
    ])
    const from = at('2026-03-10T11:00:00.000Z')
    const to = at('2026-03-11T00:00:00.000Z')
    expect(sumHours(days, from, to)).toBe(6)
    expect(sumHours(days, from, to, 'active')).toBe(2)
    expect(sumHours(days, -Infinity, Infinity)).toBe(13)
    expect(daysOf({ from, to })).toEqual({ first: '2026-03-10', last: '2026-03-10' })
    expect(daysOf({ from: -Infinity, to })).toEqual({ last: '2026-03-10' })
  })
})
