import { describe, expect, it } from 'vitest'
import { ValidationError } from '../../../../shared/domain/errors.ts'
import {
  activeUserIds,
  activityPeriod,
  activityRow,
  byRecentActivity,
  isActive,
  latestInPeriod,
} from '../../../../shared/domain/reports/user-activity.ts'
import { enrollment } from './fixtures.ts'

const now = '2026-06-30T00:00:00.000Z'
const period = { start: '2026-06-01T00:00:00.000Z', end: '2026-06-30T00:00:00.000Z' }

describe('user activity', () => {
  it('covers the 30 days before now by default, or before active_before', () => {
    expect(activityPeriod(now)).toEqual({ start: '2026-05-31T00:00:00.000Z', end: now })
    expect(activityPeriod(now, undefined, '2026-03-31T00:00:00.000Z')).toEqual({
      start: '2026-03-01T00:00:00.000Z',
      end: '2026-03-31T00:00:00.000Z',
    })
    expect(activityPeriod(now, '2026-01-01T00:00:00.000Z')).toEqual({
      start: '2026-01-01T00:00:00.000Z',
      end: now,
    })
    expect(() => activityPeriod(now, '2026-07-01T00:00:00.000Z')).toThrow(ValidationError)
  })

  it('sums time of enrollments last active in the period and counts starts and completions in it', () => {
    const list = [
      enrollment({
        startedAt: '2026-05-20T00:00:00.000Z', // before: not started in the period
        completedAt: '2026-06-05T00:00:00.000Z',
        lastActivityAt: '2026-06-05T00:00:00.000Z',
        timeSpentSeconds: 600,
      }),
      enrollment({
        startedAt: '2026-06-10T00:00:00.000Z',
        lastActivityAt: '2026-06-30T00:00:00.000Z', // the end is inside
        timeSpentSeconds: 120,
      }),
      enrollment({
        startedAt: '2026-04-01T00:00:00.000Z',
        lastActivityAt: '2026-05-01T00:00:00.000Z', // outside: its time is not counted
        timeSpentSeconds: 9999,
      }),
    ]
    const row = activityRow('u1', '2026-05-01T00:00:00.000Z', list, period)
    expect(row).toEqual({
      user_id: 'u1',
      last_login_at: '2026-05-01T00:00:00.000Z',
      total_logins: null,
      total_time_spent_seconds: 720,
      courses_started: 1,
      courses_completed: 1,
      period_start: period.start,
      period_end: period.end,
    })
    expect(isActive(row)).toBe(true)
  })

  it('is active by a login in the period alone, and inactive with nothing in it', () => {
    expect(isActive(activityRow('u1', '2026-06-01T00:00:00.000Z', [], period))).toBe(true)
    const idle = activityRow(
      'u1',
      '2026-05-31T23:59:59.999Z',
      [enrollment({ lastActivityAt: '2026-06-02T00:00:00.000Z', timeSpentSeconds: 5 })],
      period,
    )
    // Time counted but nothing started, completed or logged in: not active by the rule.
    expect(idle.total_time_spent_seconds).toBe(5)
    expect(isActive(idle)).toBe(false)
  })
})

describe('active users of a period, from ids alone', () => {
  const p = { start: '2026-05-01T00:00:00.000Z', end: '2026-05-31T00:00:00.000Z' }
  it('counts a sign-in, a start or a completion inside the period, both ends included', () => {
    const ids = activeUserIds(
      [
        { id: 'signed-in', lastLoginAt: p.end },
        { id: 'signed-in-before', lastLoginAt: '2026-04-30T23:59:59.999Z' },
      ],
      [
        enrollment({ userId: 'started', startedAt: p.start, lastActivityAt: p.start }),
        enrollment({ userId: 'completed', startedAt: '2026-01-01T00:00:00.000Z', completedAt: p.end }),
        // Active in the period, but neither started nor completed inside it: not an active user.
        enrollment({ userId: 'only-progress', startedAt: '2026-04-01T00:00:00.000Z', lastActivityAt: p.end }),
        enrollment({ userId: 'after', startedAt: '2026-05-31T00:00:00.001Z' }),
      ],
      p,
    )
    expect([...ids].sort()).toEqual(['completed', 'signed-in', 'started'])
  })

  it('orders by the latest sign-in, start or completion inside the period, ties and the inactive by id descending', () => {
    const inside = '2026-06-10T00:00:00.000Z'
    const later = '2026-06-20T00:00:00.000Z'
    const before = '2026-05-01T00:00:00.000Z'
    expect(latestInPeriod(inside, [{ startedAt: later, completedAt: null }], period)).toBe(Date.parse(later))
    expect(latestInPeriod(before, [{ startedAt: before, completedAt: inside }], period)).toBe(
      Date.parse(inside),
    )
    expect(latestInPeriod(before, [], period)).toBeNull()
    const rows = [
      { id: 'a', latest: null },
      { id: 'b', latest: 5 },
      { id: 'c', latest: 9 },
      { id: 'd', latest: 5 },
      { id: 'e', latest: null },
    ]
    expect([...rows].sort(byRecentActivity).map((r) => r.id)).toEqual(['c', 'd', 'b', 'e', 'a'])
  })
})
