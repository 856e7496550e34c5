import { describe, expect, it } from 'vitest'
import type { TenantContext } from '../../../shared/domain/tenants/tenant.ts'
import { keyRangeParams, sliceBounds } from '../../../shared/store/reports/report-pages.ts'
import {
  completionsKeyRange,
  completionsRangeParams,
  enrolledKeyRange,
  enrolledRangeParams,
} from '../../../shared/store/reports/reports-store.ts'
import { readable } from '../../helpers/readable-expression.ts'

const tenant: TenantContext = { id: 't1', plan: 'growth' }

describe('Functions: export reads', () => {
  it('reads the very range of the report route, only the row attributes', () => {
    const q = { after: '2026-01-01T00:00:00.000Z', passFail: 'pass' as const, order: 'desc' as const }
    const sliced = keyRangeParams(completionsKeyRange(tenant, q))
    const route = completionsRangeParams(tenant, q)
    expect(sliced.IndexName).toBe(route.IndexName)
    expect(sliced.ScanIndexForward).toBe(false)
    expect(readable('KeyConditionExpression', sliced)).toBe(readable('KeyConditionExpression', route))
    expect(readable('FilterExpression', sliced)).toBe(readable('FilterExpression', route))
    expect(readable('ProjectionExpression', sliced)).toBe(
      'pk, sk, id, user_id, course_id, status, enrolled_at, due_date, completed_at, source, language, ' +
        'score, pass_fail, time_spent_seconds, certificate_id, certificate_expires_at',
    )
    const enrolled = { before: '2026-02-01T00:00:00.000Z', status: 'active', order: 'asc' as const }
    const e = keyRangeParams(enrolledKeyRange(tenant, enrolled))
    const r = enrolledRangeParams(tenant, enrolled)
    expect(readable('KeyConditionExpression', e)).toBe(readable('KeyConditionExpression', r))
    expect(readable('FilterExpression', e)).toBe(readable('FilterExpression', r))
  })

  it('cuts a date range into slices of equal time that neither overlap nor miss a key', () => {
    const slices = sliceBounds('0', '~', '2026-01-01T00:00:00.000Z#a', '2026-01-05T00:00:00.000Z#z', 4)
    expect(slices).toEqual([
      ['0', '2026-01-02T00:00:00.000Z'],
      ['2026-01-02T00:00:00.000Z', '2026-01-03T00:00:00.000Z'],
      ['2026-01-03T00:00:00.000Z', '2026-01-04T00:00:00.000Z'],
      ['2026-01-04T00:00:00.000Z', '~'],
    ])
    // A key of the cut's very date sorts after the cut: it is in the later slice only.
    const key = '2026-01-02T00:00:00.000Z#m'
    const holding = slices.filter(([from, to]) => key >= from && key <= to)
    expect(holding).toEqual([slices[1]])
  })

  it('keeps a range of one date, or of keys that are not dates, whole', () => {
    expect(sliceBounds('0', '~', '2026-01-01T00:00:00.000Z#a', '2026-01-01T00:00:00.000Z#z', 8)).toEqual([
      ['0', '~'],
    ])
    expect(sliceBounds('0', '~', '!#a', '~#z', 8)).toEqual([['0', '~']])
    expect(sliceBounds('0', '~', '2026-01-01T00:00:00.000Z#a', '2026-03-01T00:00:00.000Z#z', 1)).toEqual([
      ['0', '~'],
    ])
  })
})
