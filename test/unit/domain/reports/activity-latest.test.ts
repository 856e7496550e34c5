import { describe, expect, it } from 'vitest'
import {
  activeSince,
  dayOf,
  decideLatest,
  instantsNotIn,
  instantsOf,
  latestOf,
  nextDayStart,
} from '../../../../shared/domain/reports/activity-latest.ts'

const at = (iso: string) => Date.parse(iso)

describe('A user’s latest activity (decision 0024)', () => {
  it('reads the instants of a write, leaving out nulls', () => {
    expect(instantsOf('2026-01-02T03:04:05.006Z', null)).toEqual([at('2026-01-02T03:04:05.006Z')])
    expect(instantsOf(null, null)).toEqual([])
  })

  it('takes each occurrence of an instant away once', () => {
    expect(instantsNotIn([1, 2, 2, 3], [2, 3])).toEqual([1, 2])
    expect(instantsNotIn([], [1])).toEqual([])
  })

  it('moves up on a later instant, keeps on an earlier one, and reads again when the latest may be gone', () => {
    expect(decideLatest(null, [], [5])).toEqual({ kind: 'move', to: 5 })
    expect(decideLatest(4, [], [3, 5])).toEqual({ kind: 'move', to: 5 })
    expect(decideLatest(9, [], [5])).toEqual({ kind: 'keep' })
    expect(decideLatest(9, [5], [5])).toEqual({ kind: 'keep' })
    // An older instant replaced: the latest (held elsewhere) is untouched.
    expect(decideLatest(9, [5], [3])).toEqual({ kind: 'keep' })
    // The latest itself replaced by an earlier one (a backdated start, an older sign-in).
    expect(decideLatest(9, [9], [3])).toEqual({ kind: 'recompute' })
    expect(decideLatest(9, [9], [])).toEqual({ kind: 'recompute' })
    expect(latestOf([])).toBeNull()
    expect(latestOf([3, 9, 1])).toBe(9)
  })

  it('counts the users active since an instant: the later days, plus the start day’s exact share', () => {
    const days = { '2026-03-30': 4, '2026-03-31': 2, '2026-04-01': 3, '2026-04-15': 1 }
    const start = at('2026-03-31T12:00:00Z')
    expect(dayOf(start)).toBe('2026-03-31')
    expect(nextDayStart(start)).toBe(at('2026-04-01T00:00:00Z'))
    // Of the start day's 2, one is at or after noon (the COUNT): 1 + 3 + 1.
    expect(activeSince(days, start, 1)).toBe(5)
    expect(activeSince({}, start, 0)).toBe(0)
  })
})
