import { describe, expect, it } from 'vitest'
import {
  firstOfMonth,
  isNeverBilled,
  periodLoginCounter,
  periodStartAt,
} from '../../../shared/domain/billing/billing-period.ts'
import { userCounterDeltas } from '../../../shared/domain/users/user-counters.ts'

const person = { role: 'learner', userType: 'internal', isActive: true } as const

describe('Billing periods', () => {
  it('falls back to the calendar month (UTC) when no period is reported', () => {
    expect(firstOfMonth('2026-11-23T14:00:00.000Z')).toBe('2026-11-01T00:00:00.000Z')
    expect(periodStartAt(null, '2026-12-31T23:59:59.999Z')).toBe('2026-12-01T00:00:00.000Z')
  })

  it('uses the reported period start for an instant inside it, the calendar month for one before it', () => {
    expect(periodStartAt('2026-11-15T00:00:00Z', '2026-11-20T08:00:00Z')).toBe('2026-11-15T00:00:00.000Z')
    expect(periodStartAt('2026-11-15T00:00:00Z', '2026-11-15T00:00:00Z')).toBe('2026-11-15T00:00:00.000Z')
    expect(periodStartAt('2026-11-15T00:00:00Z', '2026-11-10T08:00:00Z')).toBe('2026-11-01T00:00:00.000Z')
  })

  it('bills customers only', () => {
    expect(isNeverBilled('customer')).toBe(false)
    for (const kind of ['demo', 'sandbox', 'training'] as const) expect(isNeverBilled(kind)).toBe(true)
  })
})

describe('Sign-ins counted per period', () => {
  const nov = '2026-11-01T00:00:00.000Z'
  const dec = '2026-12-01T00:00:00.000Z'

  it('counts a first sign-in of a period once, and nothing for a second one in the same period', () => {
    expect(userCounterDeltas(person, { ...person, loginPeriod: nov })).toEqual({
      [periodLoginCounter(nov)]: 1,
    })
    expect(userCounterDeltas({ ...person, loginPeriod: nov }, { ...person, loginPeriod: nov })).toEqual({})
  })

  it('moves the person to the new period on their first sign-in in it', () => {
    expect(userCounterDeltas({ ...person, loginPeriod: nov }, { ...person, loginPeriod: dec })).toEqual({
      [periodLoginCounter(nov)]: -1,
      [periodLoginCounter(dec)]: 1,
    })
  })

  it('takes a deactivated person out of their period and puts them back when reactivated', () => {
    const signedIn = { ...person, loginPeriod: nov }
    const off = { ...signedIn, isActive: false }
    expect(userCounterDeltas(signedIn, off)).toMatchObject({
      [periodLoginCounter(nov)]: -1,
      users_active: -1,
    })
    expect(userCounterDeltas(off, signedIn)).toMatchObject({ [periodLoginCounter(nov)]: 1, users_active: 1 })
  })

  it('never counts an inactive person signing in (the sign-in is refused before; the rule holds anyway)', () => {
    const off = { ...person, isActive: false }
    expect(userCounterDeltas(off, { ...off, loginPeriod: nov })).toEqual({})
  })
})
