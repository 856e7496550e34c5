import { describe, expect, it } from 'vitest'
import type { User } from '../../shared/domain/users/user.ts'
import { insertUser } from '../../shared/store/users/users-store.ts'
import { aUser, minute } from '../helpers/builders.ts'
import { user } from '../helpers/learning.ts'
import { newTenant, type TestTenant } from '../helpers/tenants.ts'

/**
 * Stores `user` through the store's own insert, so its index attributes and the tenant's counters
 * are what any stored user has, and its times are the ones the test chose.
 */
async function seed(t: TestTenant, user: User): Promise<User> {
  await insertUser(t.tenant, { user, seatCap: null })
  return user
}

/** A row written before the `author` role was retired (so before any user created now): role `author`, no custom role. */
const seedPreMigrationAuthor = (t: TestTenant) =>
  seed(
    t,
    aUser({ firstName: 'Old', lastName: 'Author', role: 'author', createdAt: '2025-06-01T09:00:00.000Z' }),
  )

const ids = (reply: { body: { data: { id: string }[] } }) => reply.body.data.map((u) => u.id)

describe('Route: GET /api/v1/users (retired author role)', () => {
  it('role=author finds pre-migration rows and users written with author, with a matching total', async () => {
    // Prepare
    const t = await newTenant()
    const old = await seedPreMigrationAuthor(t)
    const viaApi = await user(t, { role: 'author' })
    const plain = await user(t, { role: 'learner' })

    // Act
    const reply = await t.api.get('/api/v1/users?role=author&sort_order=asc')

    // Assess
    expect(reply.status).toBe(200)
    expect(ids(reply)).toEqual([old.id, viaApi.id])
    expect(ids(reply)).not.toContain(plain.id)
    expect(reply.body.meta.total).toBe(2)
    expect(reply.body.data[0]).toMatchObject({ id: old.id, role: 'author', email: old.email })
    expect(reply.body.data[1]).toMatchObject({ id: viaApi.id, role: 'learner' })
  })

  it('role=learner leaves out pre-migration author rows but includes users written with author', async () => {
    // Prepare
    const t = await newTenant()
    const old = await seedPreMigrationAuthor(t)
    const viaApi = await user(t, { role: 'author' })
    const plain = await user(t, { role: 'learner' })

    // Act
    const reply = await t.api.get('/api/v1/users?role=learner')

    // Assess
    expect(reply.status).toBe(200)
    expect(ids(reply).sort()).toEqual([viaApi.id, plain.id].sort())
    expect(ids(reply)).not.toContain(old.id)
    expect(reply.body.meta.total).toBe(2)
  })

  it('lists a pre-migration author row among all users, counted in the total', async () => {
    // Prepare
    const t = await newTenant()
    const old = await seedPreMigrationAuthor(t)
    const plain = await user(t)

    // Act
    const reply = await t.api.get('/api/v1/users')

    // Assess
    expect(reply.status).toBe(200)
    expect(ids(reply)).toEqual([plain.id, old.id])
    expect(reply.body.meta.total).toBe(2)
  })
})

describe('Route: GET /api/v1/users/{id} (retired author role)', () => {
  it('reads a pre-migration row as role author with no custom roles', async () => {
    // Prepare
    const t = await newTenant()
    const old = await seedPreMigrationAuthor(t)

    // Act
    const reply = await t.api.get(`/api/v1/users/${old.id}`)

    // Assess
    expect(reply.status).toBe(200)
    expect(reply.body.error).toBeNull()
    expect(reply.body.data).toMatchObject({
      id: old.id,
      email: old.email,
      first_name: 'Old',
      last_name: 'Author',
      role: 'author',
      custom_roles: [],
      is_active: true,
      user_type: 'internal',
      locale: 'en',
      created_at: old.createdAt,
    })
  })
})

describe('Route: PATCH /api/v1/users/{id} (locale)', () => {
  it('changes only the locale when locale fr-CA is sent', async () => {
    // Prepare
    const t = await newTenant()
    // Stored at a past instant, so the PATCH's update time is later than the one it replaces.
    const u = await seed(t, aUser({ externalId: 'hr-7', userType: 'partner', role: 'instructor' }))
    const before = (await t.api.get(`/api/v1/users/${u.id}`)).body.data
    expect(before.locale).toBe('en')

    // Act
    const reply = await t.api.patch(`/api/v1/users/${u.id}`, { locale: 'fr-CA' })

    // Assess
    expect(reply.status).toBe(200)
    expect(reply.body.data.locale).toBe('fr-CA')
    const after = (await t.api.get(`/api/v1/users/${u.id}`)).body.data
    expect(after.locale).toBe('fr-CA')
    expect({ ...after, locale: before.locale, updated_at: before.updated_at }).toEqual(before)
    expect(after.updated_at > before.updated_at).toBe(true)
  })

  it.each([['de'], ['fr'], ['fr-ca'], [''], [42], [null]])(
    'answers 400 naming locale for locale %j and changes nothing',
    async (locale) => {
      // Prepare
      const t = await newTenant()
      const u = await user(t, { locale: 'fr-CA' })
      const before = (await t.api.get(`/api/v1/users/${u.id}`)).body.data

      // Act
      const reply = await t.api.patch(`/api/v1/users/${u.id}`, { locale, first_name: 'Changed' })

      // Assess
      expect(reply.status).toBe(400)
      expect(reply.body.data).toBeNull()
      expect(reply.body.error.code).toBe(400)
      expect(reply.body.error.message).toContain('locale')
      expect((await t.api.get(`/api/v1/users/${u.id}`)).body.data).toEqual(before)
    },
  )
})

describe('Route: GET /api/v1/users (sort_order without sort_by)', () => {
  it('sorts by created_at: oldest first with sort_order=asc, newest first by default', async () => {
    // Prepare
    const t = await newTenant()
    const [a, b, c] = [
      await seed(t, aUser({ createdAt: minute(0) })),
      await seed(t, aUser({ createdAt: minute(1) })),
      await seed(t, aUser({ createdAt: minute(2) })),
    ]

    // Act
    const asc = await t.api.get('/api/v1/users?sort_order=asc')
    const byDefault = await t.api.get('/api/v1/users')
    const desc = await t.api.get('/api/v1/users?sort_order=desc')

    // Assess
    expect(asc.status).toBe(200)
    expect(ids(asc)).toEqual([a.id, b.id, c.id])
    expect(asc.body.data.map((u: { created_at: string }) => u.created_at)).toEqual([
      a.createdAt,
      b.createdAt,
      c.createdAt,
    ])
    expect(byDefault.status).toBe(200)
    expect(ids(byDefault)).toEqual([c.id, b.id, a.id])
    expect(ids(desc)).toEqual([c.id, b.id, a.id])
    expect(asc.body.meta.total).toBe(3)
  })
})
