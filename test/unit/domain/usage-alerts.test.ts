import { describe, expect, it } from 'vitest'
import { thresholdsReached } from '../../../shared/domain/plans/usage-alerts.ts'

describe('Function: thresholdsReached', () => {
  it('names every threshold the month’s count has reached, rounding the 80% mark up', () => {
    expect(thresholdsReached(8, 10)).toEqual([80])
    expect(thresholdsReached(9, 10)).toEqual([80])
    expect(thresholdsReached(10, 10)).toEqual([80, 100])
    expect(thresholdsReached(800_000, 1_000_000)).toEqual([80])
    // 80% of 7 is 5.6: the 6th request is the first at or past the mark.
    expect(thresholdsReached(6, 7)).toEqual([80])
    expect(thresholdsReached(5, 7)).toEqual([])
  })

  it('says nothing below the first threshold, or without a cap', () => {
    expect(thresholdsReached(7, 10)).toEqual([])
    expect(thresholdsReached(1_000, null)).toEqual([])
    expect(thresholdsReached(0, 0)).toEqual([])
  })
})
