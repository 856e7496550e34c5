/**
 * Deep pages of the users list skip the offset on the keys-only position index and read the page
 * from gsi1 after the last skipped user (shared/store/users/user-positions.ts): a page must be exactly the
 * page the whole list has there, in both orders, with users of the same millisecond (ties broken by
 * id, as gsi1 breaks them) across page boundaries, a user created through the API among the seeded
 * ones, and meta.total the tenant's count.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { listUsers } from '../../shared/services/users/users-service.ts'
import { runWithDbMetrics } from '../../shared/store/core/metrics.ts'
import { seedUsers } from '../../shared/store/users/users-store.ts'
import { aUser } from '../helpers/builders.ts'
import { newTenant, userBody, type TestTenant } from '../helpers/tenants.ts'

const SEEDED = 262

let t: TestTenant
/** Every user of the tenant as gsi1 orders them, oldest first. */
let ascending: { id: string; at: string }[]

beforeAll(async () => {
  t = await newTenant()
  const base = Date.parse('2026-03-01T08:00:00.000Z')
  // Seven users per millisecond: ties fall inside pages and on their boundaries.
  const users = Array.from({ length: SEEDED }, (_, i) =>
    aUser({ createdAt: new Date(base + Math.floor(i / 7)).toISOString() }),
  )
  await seedUsers(t.tenant, users)
  const created = await t.api.post('/api/v1/users', userBody())
  expect(created.status).toBe(201)
  const fresh = created.body.data as { id: string; created_at: string }
  ascending = [
    ...users.map((u) => ({ id: u.id, at: u.createdAt })),
    { id: fresh.id, at: fresh.created_at },
  ].sort((a, b) => `${a.at}#${a.id}`.localeCompare(`${b.at}#${b.id}`))
})

async function pageIds(query: string): Promise<{ ids: string[]; total: number }> {
  const reply = await t.api.get(`/api/v1/users?${query}`)
  expect(reply.status).toBe(200)
  const body = reply.body as { data: { id: string }[]; meta: { total: number } }
  return { ids: body.data.map((u) => u.id), total: body.meta.total }
}

describe('deep pages of the users list', () => {
  it.each([
    ['newest first, page 3 of 50 (offset 100)', 'per_page=50&page=3', 'desc', 100, 50],
    ['newest first, page 5 of 50 (offset 200)', 'per_page=50&page=5', 'desc', 200, 50],
    ['newest first, the last, partial page', 'per_page=50&page=6', 'desc', 250, 13],
    ['newest first, page 15 of 7 (offset 98 reads gsi1 alone)', 'per_page=7&page=15', 'desc', 98, 7],
    ['newest first, page 16 of 7 (offset 105, mid-millisecond)', 'per_page=7&page=16', 'desc', 105, 7],
    ['oldest first, page 3 of 50', 'per_page=50&page=3&sort_by=created_at&sort_order=asc', 'asc', 100, 50],
    ['oldest first, page 12 of 20', 'per_page=20&page=12&sort_by=created_at&sort_order=asc', 'asc', 220, 20],
  ])('%s is the whole list at that offset', async (_name, query, order, offset, size) => {
    const list = order === 'asc' ? ascending : [...ascending].reverse()
    const { ids, total } = await pageIds(query)
    expect(total).toBe(SEEDED + 1)
    expect(ids).toHaveLength(size)
    expect(ids).toEqual(list.slice(offset, offset + size).map((u) => u.id))
  })

  it('a page past the end is empty and still counts every user', async () => {
    expect(await pageIds('per_page=50&page=7')).toEqual({ ids: [], total: SEEDED + 1 })
  })

  it('a deep page skips on the position index: counters, the skip, the skipped-to user, the page', async () => {
    const { metrics, done } = runWithDbMetrics(() =>
      listUsers(t.tenant, { sortBy: 'created_at', order: 'desc', offset: 200, limit: 50 }),
    )
    const page = await done
    expect(page.items.map((u) => u.id)).toEqual(
      [...ascending]
        .reverse()
        .slice(200, 250)
        .map((u) => u.id),
    )
    expect(metrics.calls.map((c) => c.op)).toEqual(['GetItem', 'Query', 'GetItem', 'Query'])
  })

  it('a filtered deep page still reads the filtered index and is the filtered list at that offset', async () => {
    const { ids, total } = await pageIds('per_page=50&page=3&is_active=true')
    expect(total).toBe(SEEDED + 1)
    expect(ids).toEqual(
      [...ascending]
        .reverse()
        .slice(100, 150)
        .map((u) => u.id),
    )
  })
})
