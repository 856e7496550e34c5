/** Issue 26, point 2: one timestamp type (decision 0027). */
import { describe, expect, it } from 'vitest'
import { isCalendarDate, isStorableNumber, utcInstant } from '../../../shared/domain/validation.ts'

describe('Function: utcInstant', () => {
  it('names the UTC instant of a timestamp with an offset', () => {
    expect(utcInstant('2026-01-01T01:00:00+01:00')).toBe('2026-01-01T00:00:00.000Z')
    expect(utcInstant('2026-06-01T10:00Z')).toBe('2026-06-01T10:00:00.000Z')
    expect(utcInstant('0000-01-01T00:00:00Z')).toBe('0000-01-01T00:00:00.000Z')
  })

  it('refuses an instant whose UTC year leaves four digits once the offset is applied', () => {
    expect(utcInstant('9999-12-31T23:59:59-23:59')).toBeUndefined()
    expect(utcInstant('0000-01-01T00:00:00+00:01')).toBeUndefined()
  })

  it('refuses impossible days, times and offsets instead of rolling them over', () => {
    for (const s of [
      '2026-02-30T00:00:00Z',
      '2027-02-29T00:00:00Z',
      '2026-04-31T00:00:00Z',
      '2026-13-01T00:00:00Z',
      '2026-01-01T24:00:00Z',
      '2026-01-01T10:60:00Z',
      '2026-01-01T10:00:60Z',
      '2026-01-01T10:00:00+24:00',
    ])
      expect(utcInstant(s), s).toBeUndefined()
    expect(utcInstant('2028-02-29T00:00:00Z')).toBe('2028-02-29T00:00:00.000Z')
  })
})

describe('Function: isCalendarDate', () => {
  it('takes days of the proleptic Gregorian calendar only', () => {
    expect(isCalendarDate('2026-02-28')).toBe(true)
    expect(isCalendarDate('2026-02-30')).toBe(false)
    expect(isCalendarDate('2000-02-29')).toBe(true)
    expect(isCalendarDate('1900-02-29')).toBe(false)
    expect(isCalendarDate('0000-02-29')).toBe(true)
  })
})

describe('Function: isStorableNumber', () => {
  it('takes zero and magnitudes from 1e-130 to the largest safe integer', () => {
    for (const n of [0, -0, 1e-130, -2.5, Number.MAX_SAFE_INTEGER])
      expect(isStorableNumber(n), String(n)).toBe(true)
    for (const n of [1e-131, 1e126, -1e300, Number.MAX_SAFE_INTEGER + 2, Number.NaN, Infinity])
      expect(isStorableNumber(n), String(n)).toBe(false)
  })
})
