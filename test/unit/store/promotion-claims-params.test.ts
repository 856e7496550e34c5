import { describe, expect, it } from 'vitest'
import type { TenantContext } from '../../../shared/domain/tenants/tenant.ts'
import {
  PROMOTION_CLAIM_LEASE_MS,
  promotionClaimParams,
} from '../../../shared/store/enrollments/promotion-claims.ts'
import { readable } from '../../helpers/readable-expression.ts'

const tenant: TenantContext = { id: 't1', plan: 'growth' }
const now = new Date('2026-03-01T10:00:00.000Z')
const place = '2026-02-27T08:00:00.000Z#e1'

describe('Functions: waitlist promotion claims', () => {
  it('claims a waitlist place when no one holds it, or when its holder’s lease ran out', () => {
    const p = promotionClaimParams.claim(tenant, place, 'tok', now)

    expect(p.Item).toMatchObject({
      pk: 'T#t1',
      sk: `PROMOTING#${place}`,
      token: 'tok',
      lease_until: new Date(now.getTime() + PROMOTION_CLAIM_LEASE_MS).toISOString(),
      ttl: now.getTime() / 1000 + 86_400,
    })
    expect(readable('ConditionExpression', p)).toBe(
      `(attribute_not_exists(pk)) OR (lease_until < "${now.toISOString()}")`,
    )
  })

  it('lets only the holder give a place back', () => {
    const p = promotionClaimParams.release(tenant, place, 'tok')

    expect(p.Key).toEqual({ pk: 'T#t1', sk: `PROMOTING#${place}` })
    expect(readable('ConditionExpression', p)).toBe('token = "tok"')
  })

  it('outlasts a request, so a live promoter keeps its place to the end', () => {
    expect(PROMOTION_CLAIM_LEASE_MS).toBeGreaterThan(29_000)
  })
})
