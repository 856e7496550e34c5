import { describe, expect, it } from 'vitest'
import { alertCrossedBy } from '../../../shared/domain/plans/usage-alerts.ts'

describe('Function: alertCrossedBy', () => {
  it('names the threshold the request reaches, rounding the 80% mark up', () => {
    expect(alertCrossedBy(8, 10)).toBe(80)
    expect(alertCrossedBy(10, 10)).toBe(100)
    expect(alertCrossedBy(800_000, 1_000_000)).toBe(80)
    // 80% of 7 is 5.6: the alert comes with the 6th request, the first at or past the mark.
    expect(alertCrossedBy(6, 7)).toBe(80)
    expect(alertCrossedBy(5, 7)).toBeUndefined()
  })

  it('says nothing between and past the thresholds, or without a cap', () => {
    expect(alertCrossedBy(9, 10)).toBeUndefined()
    expect(alertCrossedBy(11, 10)).toBeUndefined()
    expect(alertCrossedBy(1, null)).toBeUndefined()
    expect(alertCrossedBy(0, 0)).toBeUndefined()
  })
})
