import { describe, expect, it } from 'vitest'
import { operator } from '../../shared/domain/actor.ts'
import { EntitlementError } from '../../shared/domain/errors.ts'
import { createUser, listUsers, updateUser } from '../../shared/services/users/users-service.ts'
import { updateTenant } from '../../shared/services/tenants/tenants-service.ts'
import { newTenant, userBody } from '../helpers/tenants.ts'

const input = (over: Record<string, unknown> = {}) =>
  ({ ...userBody(), ...over }) as Parameters<typeof createUser>[1]

async function activeCount(tenant: Parameters<typeof listUsers>[0]) {
  const page = await listUsers(tenant, {
    isActive: true,
    sortBy: 'created_at',
    order: 'desc',
    offset: 0,
    limit: 200,
  })
  return page.total
}

describe('Rule: the free plan seat cap', () => {
  it('lets exactly 5 of 25 parallel active creates succeed', async () => {
    const t = await newTenant('free')
    const results = await Promise.allSettled(
      Array.from({ length: 25 }, () => createUser(t.tenant, input(), operator)),
    )
    const ok = results.filter((r) => r.status === 'fulfilled')
    const refused = results.filter((r) => r.status === 'rejected')
    expect(ok).toHaveLength(5)
    expect(refused.every((r) => r.status === 'rejected' && r.reason instanceof EntitlementError)).toBe(true)
    expect(await activeCount(t.tenant)).toBe(5)
  })

  it('honours the cap on reactivation, and frees a seat on deactivation', async () => {
    const t = await newTenant('free')
    const active = []
    for (let i = 0; i < 5; i++) active.push(await createUser(t.tenant, input(), operator))
    const dormant = await createUser(t.tenant, input({ is_active: false }), operator)
    await expect(updateUser(t.tenant, dormant.id, { is_active: true }, operator)).rejects.toBeInstanceOf(
      EntitlementError,
    )
    await updateUser(t.tenant, active[0]?.id ?? '', { is_active: false }, operator)
    const back = await updateUser(t.tenant, dormant.id, { is_active: true }, operator)
    expect(back.isActive).toBe(true)
    expect(await activeCount(t.tenant)).toBe(5)
  })

  it('keeps a downgraded tenant above the cap as it is, and gates new seats until it is below', async () => {
    const t = await newTenant('growth')
    const users = []
    for (let i = 0; i < 7; i++) users.push(await createUser(t.tenant, input(), operator))
    await updateTenant(t.slug, { plan: 'free' })
    const free = { ...t.tenant, plan: 'free' as const }
    expect(await activeCount(free)).toBe(7)
    await expect(createUser(free, input(), operator)).rejects.toBeInstanceOf(EntitlementError)
    expect((await createUser(free, input({ is_active: false }), operator)).isActive).toBe(false)
    for (const u of users.slice(0, 3)) await updateUser(free, u.id, { is_active: false }, operator)
    const reactivate = updateUser(free, users[0]?.id ?? '', { is_active: true }, operator)
    expect((await reactivate).isActive).toBe(true)
    await expect(createUser(free, input(), operator)).rejects.toBeInstanceOf(EntitlementError)
  })
})
