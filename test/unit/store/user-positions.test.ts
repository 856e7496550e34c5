import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import type { TenantContext } from '../../../shared/domain/tenants/tenant.ts'
import { keys } from '../../../shared/store/core/keys.ts'
import { positionIndex, skipQueryParams, userPosition } from '../../../shared/store/users/user-positions.ts'
import { readable } from '../../helpers/readable-expression.ts'

const tenant: TenantContext = { id: 'tenant-1', plan: 'growth' }

describe('user positions (the keys-only index deep pages skip on)', () => {
  it('sorts users exactly as gsi1 does: by created_at, then id, ties of one millisecond included', () => {
    const base = Date.parse('1999-12-31T23:59:59.990Z')
    const users = Array.from({ length: 400 }, (_, i) => ({
      id: randomUUID(),
      createdAt: new Date(base + Math.floor(i / 5) * (i % 3 === 0 ? 1 : 997_331)).toISOString(),
    }))
    const byGsi1 = [...users].sort((a, b) =>
      keys.usersByCreated(a.createdAt, a.id).localeCompare(keys.usersByCreated(b.createdAt, b.id)),
    )
    const byPosition = [...users].sort((a, b) =>
      userPosition(a.createdAt, a.id).localeCompare(userPosition(b.createdAt, b.id)),
    )
    expect(byPosition.map((u) => u.id)).toEqual(byGsi1.map((u) => u.id))
  })

  it('is short and of fixed width, so an entry is little more than the table keys', () => {
    const id = randomUUID()
    expect(userPosition('1970-01-01T00:00:00.001Z', id)).toBe(`000000001#${id.slice(0, 12)}`)
    expect(userPosition('2026-11-23T17:00:00.000Z', id)).toHaveLength(22)
  })

  it('refuses a created_at that is not an instant', () => {
    expect(() => userPosition('yesterday', randomUUID())).toThrow('created_at is not an instant')
  })

  it('skips in list order on the tenant partition of pos1, reading exactly the offset', () => {
    const p = skipQueryParams(tenant, 'desc', 4950)
    expect(p.IndexName).toBe(positionIndex.name)
    expect(p.Limit).toBe(4950)
    expect(p.ScanIndexForward).toBe(false)
    expect(readable('KeyConditionExpression', p)).toBe('pk = "T#tenant-1"')
    expect(skipQueryParams(tenant, 'asc', 100).ScanIndexForward).toBe(true)
  })
})
