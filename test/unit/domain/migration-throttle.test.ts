import { describe, expect, it } from 'vitest'
import { throttleDelayMs, unlimited } from '../../../shared/domain/migrations/throttle.ts'

describe('throttleDelayMs: the wait after a page that keeps a migration within its capacity budget', () => {
  it('waits out what the page consumed at the budget, less the time the page itself took', () => {
    // 100 RCU at 50 a second is 2 s; the page took 0.5 s.
    expect(throttleDelayMs({ rcu: 100, wcu: 0 }, { rcuPerSecond: 50, wcuPerSecond: null }, 500)).toBe(1500)
  })

  it('does not wait when the page already took as long as its capacity allows', () => {
    expect(throttleDelayMs({ rcu: 100, wcu: 0 }, { rcuPerSecond: 50, wcuPerSecond: null }, 2000)).toBe(0)
    expect(throttleDelayMs({ rcu: 100, wcu: 0 }, { rcuPerSecond: 50, wcuPerSecond: null }, 9000)).toBe(0)
  })

  it('keeps to the tighter of the read and write budgets', () => {
    // Reads ask 1 s (50 / 50), writes 4 s (40 / 10).
    expect(throttleDelayMs({ rcu: 50, wcu: 40 }, { rcuPerSecond: 50, wcuPerSecond: 10 }, 0)).toBe(4000)
    expect(throttleDelayMs({ rcu: 500, wcu: 40 }, { rcuPerSecond: 50, wcuPerSecond: 10 }, 0)).toBe(10_000)
  })

  it('rounds up to a whole millisecond, so the average never runs over the budget', () => {
    expect(throttleDelayMs({ rcu: 1, wcu: 0 }, { rcuPerSecond: 3, wcuPerSecond: null }, 0)).toBe(334)
  })

  it('never waits without a budget, for a page that consumed nothing, or with a budget of 0 (no limit)', () => {
    expect(throttleDelayMs({ rcu: 1e6, wcu: 1e6 }, unlimited, 0)).toBe(0)
    expect(throttleDelayMs({ rcu: 0, wcu: 0 }, { rcuPerSecond: 1, wcuPerSecond: 1 }, 0)).toBe(0)
    expect(throttleDelayMs({ rcu: 10, wcu: 10 }, { rcuPerSecond: 0, wcuPerSecond: 0 }, 0)).toBe(0)
  })

  it('reads a negative elapsed time (a clock step back) as none', () => {
    expect(throttleDelayMs({ rcu: 10, wcu: 0 }, { rcuPerSecond: 10, wcuPerSecond: null }, -5000)).toBe(1000)
  })
})
