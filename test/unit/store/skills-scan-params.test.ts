import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import type { TenantContext } from '../../../shared/domain/tenants/tenant.ts'
import { queryExpression } from '../../../shared/store/core/expression.ts'
import { keyPrefix, prefixSegmentsParams, userItemsOnly } from '../../../shared/store/skills/skills-scan.ts'

const tenant: TenantContext = { id: 'ten-1', plan: 'growth' }

/** The [low, high] sort-key range of each Query (every one is `pk = :v0 AND sk BETWEEN :v1 AND :v2`). */
const ranges = (prefix: string) =>
  prefixSegmentsParams(tenant, prefix).map((p) => {
    expect(p.KeyConditionExpression).toMatch(/BETWEEN/)
    const values = Object.values(p.ExpressionAttributeValues ?? {}) as string[]
    expect(values[0]).toBe('T#ten-1')
    return { low: values[1] ?? '', high: values[2] ?? '' }
  })

const inRange = (sk: string, r: { low: string; high: string }) => sk >= r.low && sk <= r.high

describe('the status matrix’s tenant-wide reads (16 Queries side by side)', () => {
  it('puts every held skill in exactly one of 16 key ranges, whatever the user id starts with', () => {
    const segments = ranges('USKILL#')
    expect(segments).toHaveLength(16)
    const userIds = [
      ...Array.from({ length: 200 }, () => randomUUID()),
      '00000000-0000-4000-8000-000000000000',
      'ffffffff-ffff-4fff-bfff-ffffffffffff',
      'not-a-uuid',
      'Zed',
      '-dash',
      'é-accent',
    ]
    for (const id of userIds) {
      const sk = `USKILL#${id}#${randomUUID()}`
      expect(
        segments.filter((r) => inRange(sk, r)),
        sk,
      ).toHaveLength(1)
    }
  })

  it('reads nothing outside the prefix', () => {
    const segments = ranges('UROLE#')
    for (const sk of ['UROLE', 'UROLD#x', 'UROLF#0', 'USKILL#0#1', 'USER#0']) {
      expect(
        segments.some((r) => inRange(sk, r)),
        sk,
      ).toBe(false)
    }
  })

  it('keeps held skills and skills summaries apart, though one prefix begins the other', () => {
    const held = ranges('USKILL#')
    const summaries = ranges('USKILLSUM#')
    expect(held.some((r) => inRange('USKILLSUM#0a', r))).toBe(false)
    expect(summaries.some((r) => inRange('USKILL#0a#s1', r))).toBe(false)
    expect(summaries.filter((r) => inRange('USKILLSUM#0a', r))).toHaveLength(1)
  })
})

describe('the skills items read by key prefix', () => {
  it('is a key range (DynamoDB Local reads a whole partition for begins_with) holding exactly the prefixed keys', () => {
    const params = queryExpression({ key: keyPrefix(tenant, 'USKILL#u1#') })
    expect(params.KeyConditionExpression).toMatch(/BETWEEN/)
    expect(params.KeyConditionExpression).not.toMatch(/begins_with/)
    const [pk, low, high] = Object.values(params.ExpressionAttributeValues ?? {}) as string[]
    expect(pk).toBe('T#ten-1')
    const r = { low: low ?? '', high: high ?? '' }
    expect(inRange(`USKILL#u1#${randomUUID()}`, r)).toBe(true)
    expect(inRange('USKILL#u1#', r)).toBe(true)
    for (const sk of ['USKILL#u1', 'USKILL#u10#x', 'USKILL#u2#x', 'USKILL#u1$', 'UROLE#u1#x']) {
      expect(inRange(sk, r), sk).toBe(false)
    }
  })
})

describe('every user for the status matrix', () => {
  it('reads the user items of the USER# ranges, not their group edges', () => {
    const params = prefixSegmentsParams(tenant, 'USER#', { filter: userItemsOnly })
    expect(params).toHaveLength(16)
    for (const p of params) {
      expect(p.FilterExpression).toBeDefined()
      expect(Object.values(p.ExpressionAttributeValues ?? {})).toContain('user')
      expect(p.ConsistentRead).toBeUndefined()
    }
  })
})

describe('the summaries’ backfill', () => {
  it('reads every range strongly consistent, so a write committed before the read is seen', () => {
    const params = prefixSegmentsParams(tenant, 'USKILLSUM#', { consistent: true })
    expect(params.map((p) => p.ConsistentRead)).toEqual(Array.from({ length: 16 }, () => true))
  })
})
