import { describe, expect, it } from 'vitest'
import { expiredLookbackStart, noticeDue } from '../../../../shared/domain/enrollments/certificate-expiry.ts'

const DAY = 86_400_000
const expires = '2027-01-31T12:00:00.000Z'
const before = (days: number) => new Date(Date.parse(expires) - days * DAY).toISOString()

describe('Function: noticeDue', () => {
  it('owes nothing before the 30-day window opens', () => {
    expect(noticeDue(expires, before(30.5))).toBeUndefined()
  })

  it('owes the 30-day notice from 30 days before, with the whole days left rounded up', () => {
    expect(noticeDue(expires, before(30))).toEqual({ stage: 30, daysLeft: 30 })
    expect(noticeDue(expires, before(29.5))).toEqual({ stage: 30, daysLeft: 30 })
  })

  it('owes the 30-day notice to a run that missed days, saying the days actually left', () => {
    expect(noticeDue(expires, before(25))).toEqual({ stage: 30, daysLeft: 25 })
  })

  it('owes the 7-day notice from 7 days before, and it alone to a run that missed the 30-day one', () => {
    expect(noticeDue(expires, before(7))).toEqual({ stage: 7, daysLeft: 7 })
    expect(noticeDue(expires, before(0.25))).toEqual({ stage: 7, daysLeft: 1 })
  })

  it('owes the expired notice from the expiry itself (as the compliance report counts it)', () => {
    expect(noticeDue(expires, expires)).toEqual({ stage: 0, daysLeft: 0 })
    expect(noticeDue(expires, before(-3))).toEqual({ stage: 0, daysLeft: 0 })
  })
})

describe('Function: expiredLookbackStart', () => {
  it('looks back 30 days', () => {
    expect(expiredLookbackStart(expires)).toBe(before(30))
  })
})
