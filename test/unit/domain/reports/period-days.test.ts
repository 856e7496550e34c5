import { describe, expect, it } from 'vitest'
import { periodParts } from '../../../../shared/domain/reports/period-days.ts'

describe('periodParts: a period as whole days and exact edges', () => {
  it('keeps whole days whole and reads the partial first and last days exactly', () => {
    expect(periodParts('2026-08-25T13:30:00.000Z', '2026-11-23T09:00:00.000Z')).toEqual({
      days: { first: '2026-08-26', last: '2026-11-22' },
      edges: [
        { from: '2026-08-25T13:30:00.000Z', to: '2026-08-25T23:59:59.999Z' },
        { from: '2026-11-23T00:00:00.000Z', to: '2026-11-23T09:00:00.000Z' },
      ],
    })
  })

  it('needs no edge when the bounds are a day start and a day end', () => {
    expect(periodParts('2026-01-01T00:00:00.000Z', '2026-01-31T23:59:59.999Z')).toEqual({
      days: { first: '2026-01-01', last: '2026-01-31' },
      edges: [],
    })
    expect(periodParts('2026-01-01T00:00:00.000Z', '2026-01-01T23:59:59.999Z')).toEqual({
      days: { first: '2026-01-01', last: '2026-01-01' },
      edges: [],
    })
  })

  it('reads a period inside one day, or across one midnight, as edges only', () => {
    expect(periodParts('2026-03-01T08:00:00.000Z', '2026-03-01T09:00:00.000Z')).toEqual({
      days: null,
      edges: [{ from: '2026-03-01T08:00:00.000Z', to: '2026-03-01T09:00:00.000Z' }],
    })
    expect(periodParts('2026-03-01T00:00:00.000Z', '2026-03-01T09:00:00.000Z')).toEqual({
      days: null,
      edges: [{ from: '2026-03-01T00:00:00.000Z', to: '2026-03-01T09:00:00.000Z' }],
    })
    expect(periodParts('2026-03-01T22:00:00.000Z', '2026-03-02T02:00:00.000Z')).toEqual({
      days: null,
      edges: [
        { from: '2026-03-01T22:00:00.000Z', to: '2026-03-01T23:59:59.999Z' },
        { from: '2026-03-02T00:00:00.000Z', to: '2026-03-02T02:00:00.000Z' },
      ],
    })
  })

  it('leaves an open side open: every day before the end or after the start', () => {
    expect(periodParts(undefined, '2026-03-01T12:00:00.000Z')).toEqual({
      days: { first: '0000-00-00', last: '2026-02-28' },
      edges: [{ from: '2026-03-01T00:00:00.000Z', to: '2026-03-01T12:00:00.000Z' }],
    })
    expect(periodParts('2026-03-01T12:00:00.000Z')).toEqual({
      days: { first: '2026-03-02', last: '9999-99-99' },
      edges: [{ from: '2026-03-01T12:00:00.000Z', to: '2026-03-01T23:59:59.999Z' }],
    })
  })

  it('gives nothing for a start after the end', () => {
    expect(periodParts('2026-03-02T00:00:00.000Z', '2026-03-01T00:00:00.000Z')).toEqual({
      days: null,
      edges: [],
    })
  })
})

describe('dayTallyDeltas: what writes move on the creation days', () => {
  it('puts a new enrollment on its creation day and moves a completion on that same day', async () => {
    const { dayTallyDeltas } = await import('../../../../shared/domain/reports/period-days.ts')
    const { enrollment } = await import('./fixtures.ts')
    const created = '2026-03-01T22:00:00.000Z'
    const active = enrollment({ createdAt: created, enrolledAt: created, status: 'active' })
    const done = { ...active, status: 'completed' as const, completedAt: '2026-03-05T22:00:10.000Z' }
    expect(dayTallyDeltas([{ before: undefined, after: active }])).toEqual(
      new Map([['2026-03-01', expect.objectContaining({ enrollments: 1, completions: 0 })]]),
    )
    const moved = dayTallyDeltas([{ before: active, after: done }])
    expect([...moved.keys()]).toEqual(['2026-03-01'])
    expect(moved.get('2026-03-01')).toMatchObject({
      enrollments: 0,
      completions: 1,
      completeSecondsSum: 4 * 86_400 + 10,
    })
  })
})
