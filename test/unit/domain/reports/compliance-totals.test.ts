import { describe, expect, it } from 'vitest'
import { complianceStatus } from '../../../../shared/domain/reports/compliance.ts'
import {
  complianceTotals,
  expiryBucket,
  expiryBucketDelta,
  type ExpiryHistogram,
} from '../../../../shared/domain/reports/compliance-totals.ts'
import { enrollment } from './fixtures.ts'

const asOf = '2026-06-10T12:00:00.000Z'
const done = (completedAt: string, certificateExpiresAt: string | null) =>
  enrollment({ status: 'completed', completedAt, certificateExpiresAt })

describe('expiryBucket: where an assignment counts in the compliance histogram', () => {
  it('puts no completion in none, a lasting certificate in never, an expiring one on its UTC day', () => {
    expect(expiryBucket(enrollment({ status: 'active' }))).toBe('none')
    expect(expiryBucket(done('2026-01-01T00:00:00.000Z', null))).toBe('never')
    expect(expiryBucket(done('2026-01-01T00:00:00.000Z', '2026-07-01T23:59:59.999Z'))).toBe('2026-07-01')
    expect(expiryBucket(enrollment({ status: 'expired' }))).toBe('none')
  })

  it('leaves dropped, waitlisted and pending enrollments out (not assignments)', () => {
    for (const status of ['dropped', 'waitlisted', 'pending_approval'] as const) {
      expect(expiryBucket(enrollment({ status, completedAt: '2026-01-01T00:00:00.000Z' }))).toBeNull()
    }
  })
})

describe('expiryBucketDelta: what writes move', () => {
  it('moves a completion from none to its expiry day and a renewal from one day to another', () => {
    const active = enrollment({ status: 'active' })
    const first = done('2026-01-01T00:00:00.000Z', '2027-01-01T00:00:00.000Z')
    const renewed = done('2026-06-01T00:00:00.000Z', '2027-06-01T00:00:00.000Z')
    expect(expiryBucketDelta([{ before: undefined, after: active }])).toEqual(new Map([['none', 1]]))
    expect(expiryBucketDelta([{ before: active, after: first }])).toEqual(
      new Map([
        ['none', -1],
        ['2027-01-01', 1],
      ]),
    )
    expect(expiryBucketDelta([{ before: first, after: renewed }])).toEqual(
      new Map([
        ['2027-01-01', -1],
        ['2027-06-01', 1],
      ]),
    )
  })

  it('sums a group and keeps no zero (a drop leaves the assignments; progress moves nothing)', () => {
    const active = enrollment({ status: 'active' })
    expect(
      expiryBucketDelta([
        { before: undefined, after: active },
        { before: active, after: enrollment({ status: 'dropped' }) },
        { before: active, after: enrollment({ status: 'active', progressPercent: 50 }) },
      ]),
    ).toEqual(new Map())
  })
})

describe('complianceTotals: the three totals from the histogram', () => {
  // Hand-counted: 3 without completion, 2 lasting, and expiries around asOf and the window's end
  // (2026-07-10T12:00:00.000Z).
  const list = [
    enrollment({ status: 'active' }),
    enrollment({ status: 'active' }),
    enrollment({ status: 'expired' }),
    done('2026-01-01T00:00:00.000Z', null),
    done('2026-01-01T00:00:00.000Z', null),
    done('2025-01-01T00:00:00.000Z', '2026-03-01T00:00:00.000Z'), // expired long ago
    done('2025-06-10T00:00:00.000Z', '2026-06-10T08:00:00.000Z'), // asOf's day, before it
    done('2025-06-10T00:00:00.000Z', '2026-06-10T12:00:00.000Z'), // exactly asOf: expired
    done('2025-06-10T00:00:00.000Z', '2026-06-10T18:00:00.000Z'), // asOf's day, after it: soon
    done('2025-07-01T00:00:00.000Z', '2026-07-01T00:00:00.000Z'), // soon
    done('2025-07-10T00:00:00.000Z', '2026-07-10T12:00:00.000Z'), // exactly the window end: soon
    done('2025-07-10T00:00:00.000Z', '2026-07-10T13:00:00.000Z'), // the end's day, after it
    done('2025-09-01T00:00:00.000Z', '2026-09-01T00:00:00.000Z'), // compliant
  ]
  const byDay = new Map<string, number>()
  for (const e of list) {
    const b = expiryBucket(e)
    if (b !== null && b !== 'none' && b !== 'never') byDay.set(b, (byDay.get(b) ?? 0) + 1)
  }
  const histogram: ExpiryHistogram = {
    assignments: list.length,
    none: 3,
    byDay,
    asOfDayUpTo: 2,
    windowEndDayUpTo: 1,
  }

  it('agrees with each row status counted one by one', () => {
    const counted = { compliant: 0, expiring_soon: 0, non_compliant: 0 }
    for (const e of list) counted[complianceStatus(e, asOf)] += 1
    expect(counted).toEqual({ compliant: 4, expiring_soon: 3, non_compliant: 6 })
    expect(complianceTotals(histogram, asOf)).toEqual(counted)
  })

  it('counts nothing for an empty tenant', () => {
    const empty = { assignments: 0, none: 0, byDay: new Map(), asOfDayUpTo: 0, windowEndDayUpTo: 0 }
    expect(complianceTotals(empty, asOf)).toEqual({ compliant: 0, expiring_soon: 0, non_compliant: 0 })
  })
})
