import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { putCustomFieldDef } from '../../shared/store/users/users-store.ts'
import { listOutboxEvents } from '../../shared/store/outbox/outbox-store.ts'
import { client } from '../helpers/http.ts'
import { newTenant, userBody, type TestTenant } from '../helpers/tenants.ts'

const baseFields = [
  'created_at',
  'email',
  'external_id',
  'first_name',
  'id',
  'is_active',
  'last_name',
  'role',
]

async function createUsers(t: TestTenant, bodies: Record<string, unknown>[]) {
  const out = []
  for (const b of bodies) {
    const r = await t.api.post('/api/v1/users', b)
    expect(r.status).toBe(201)
    out.push(r.body.data)
  }
  return out
}

describe('Route: POST /api/v1/users', () => {
  it('creates a user with defaults and returns 201 with the full resource', async () => {
    const t = await newTenant()
    const reply = await t.api.post(
      '/api/v1/users',
      userBody({ email: 'Mixed.Case@Example.com', external_id: 'hr-1' }),
    )
    expect(reply.status).toBe(201)
    expect(reply.body.error).toBeNull()
    expect(reply.body.meta).toBeNull()
    expect(reply.body.data).toMatchObject({
      email: 'mixed.case@example.com',
      role: 'learner',
      is_active: true,
      user_type: 'internal',
      locale: 'en',
      external_id: 'hr-1',
      group_ids: [],
      custom_fields: {},
      last_login_at: null,
    })
    expect(reply.body.data.id).toMatch(/^[0-9a-f-]{36}$/)
    expect(reply.body.data.updated_at).toBe(reply.body.data.created_at)
  })

  it.each([
    ['email', { email: undefined }],
    ['first_name', { first_name: undefined }],
    ['last_name', { last_name: '' }],
    ['role', { role: undefined }],
    ['role', { role: 'wizard' }],
    ['email', { email: 'not-an-email' }],
    ['user_type', { user_type: 'alien' }],
    ['locale', { locale: 'de' }],
    ['is_active', { is_active: 'yes' }],
    ['group_ids', { group_ids: 'x' }],
    ['group_ids[0]', { group_ids: ['not-a-uuid'] }],
  ])('answers 400 naming %s for %j, and writes nothing', async (field, override) => {
    const t = await newTenant()
    const reply = await t.api.post('/api/v1/users', userBody(override))
    expect(reply.status).toBe(400)
    expect(reply.body.data).toBeNull()
    expect(reply.body.error.code).toBe(400)
    expect(reply.body.error.message).toContain(field)
    expect((await t.api.get('/api/v1/users')).body.meta.total).toBe(0)
  })

  it('answers 400 for more than 100 group_ids', async () => {
    const t = await newTenant()
    const ids = Array.from({ length: 101 }, () => randomUUID())
    const reply = await t.api.post('/api/v1/users', userBody({ group_ids: ids }))
    expect(reply.status).toBe(400)
    expect(reply.body.error.message).toContain('group_ids')
  })

  it('answers 400 for malformed JSON without writing anything', async () => {
    const t = await newTenant()
    const reply = await t.api.post('/api/v1/users', undefined, { rawBody: '{"email": ' })
    expect(reply.status).toBe(400)
    expect(reply.body).toEqual({
      data: null,
      meta: null,
      error: { code: 400, message: 'body: must be valid JSON' },
    })
  })

  it('answers 409 for an e-mail already in the tenant, whatever its case, and allows it in another tenant', async () => {
    const t = await newTenant()
    const other = await newTenant()
    await createUsers(t, [userBody({ email: 'dup@example.com' })])
    const again = await t.api.post('/api/v1/users', userBody({ email: 'DUP@example.com' }))
    const elsewhere = await other.api.post('/api/v1/users', userBody({ email: 'dup@example.com' }))
    expect(again.status).toBe(409)
    expect(again.body.error.message).toMatch(/email/)
    expect(elsewhere.status).toBe(201)
  })

  it('lets exactly one of many parallel creates with the same e-mail succeed', async () => {
    const t = await newTenant()
    const replies = await Promise.all(
      Array.from({ length: 12 }, () => t.api.post('/api/v1/users', userBody({ email: 'race@example.com' }))),
    )
    expect(replies.filter((r) => r.status === 201)).toHaveLength(1)
    expect(replies.filter((r) => r.status === 409)).toHaveLength(11)
    expect((await t.api.get('/api/v1/users')).body.meta.total).toBe(1)
  })

  it('needs the admin scope for privileged roles; a write key creates learners and instructors', async () => {
    const t = await newTenant()
    const writer = client(t.slug, await t.key(['read', 'write']))
    for (const role of ['learner', 'instructor']) {
      expect((await writer.post('/api/v1/users', userBody({ role }))).status).toBe(201)
    }
    for (const role of ['manager', 'group_admin', 'ecommerce_admin', 'admin', 'owner']) {
      const refused = await writer.post('/api/v1/users', userBody({ role }))
      expect(refused.status).toBe(403)
      expect(refused.body.error.message).toMatch(/admin scope/)
      expect((await t.api.post('/api/v1/users', userBody({ role }))).status).toBe(201)
    }
  })

  it('stores the retired author role as a learner holding the Content Author role', async () => {
    const t = await newTenant()
    const reply = await t.api.post('/api/v1/users', userBody({ role: 'author' }))
    expect(reply.status).toBe(201)
    expect(reply.body.data.role).toBe('learner')
    expect(reply.body.data.custom_roles).toEqual([{ id: 'content-author', name: 'Content Author' }])
    const listed = await t.api.get('/api/v1/users?role=author')
    expect(listed.body.data.map((u: { id: string }) => u.id)).toEqual([reply.body.data.id])
  })

  it('validates custom_fields against the tenant definitions', async () => {
    const t = await newTenant()
    await putCustomFieldDef(t.tenant, {
      key: 'badge',
      label: 'Badge',
      type: 'number',
      required: false,
      options: [],
    })
    await putCustomFieldDef(t.tenant, {
      key: 'site',
      label: 'Site',
      type: 'select',
      required: false,
      options: ['mtl', 'qc'],
    })
    const good = await t.api.post('/api/v1/users', userBody({ custom_fields: { badge: 7, site: 'qc' } }))
    const unknown = await t.api.post('/api/v1/users', userBody({ custom_fields: { shoe: 9 } }))
    const wrongType = await t.api.post('/api/v1/users', userBody({ custom_fields: { badge: 'seven' } }))
    const wrongOption = await t.api.post('/api/v1/users', userBody({ custom_fields: { site: 'nyc' } }))
    expect(good.status).toBe(201)
    expect(good.body.data.custom_fields).toEqual({ badge: 7, site: 'qc' })
    expect(unknown.status).toBe(400)
    expect(unknown.body.error.message).toContain('custom_fields.shoe')
    expect(wrongType.status).toBe(400)
    expect(wrongType.body.error.message).toContain('custom_fields.badge')
    expect(wrongOption.status).toBe(400)
    expect(wrongOption.body.error.message).toContain('custom_fields.site')
  })

  it('adds the user to group_ids and refuses an id that is not a group of the tenant', async () => {
    const t = await newTenant()
    const g = (await t.api.post('/api/v1/groups', { name: 'Sales' })).body.data
    const created = await t.api.post('/api/v1/users', userBody({ group_ids: [g.id] }))
    const bad = await t.api.post('/api/v1/users', userBody({ group_ids: [g.id, randomUUID()] }))
    expect(created.status).toBe(201)
    expect(created.body.data.group_ids).toEqual([g.id])
    expect((await t.api.get(`/api/v1/groups/${g.id}`)).body.data.member_count).toBe(1)
    expect(bad.status).toBe(400)
    expect(bad.body.error.message).toContain('group_ids[1]')
  })

  it('writes user.created to the outbox with the user', async () => {
    const t = await newTenant()
    const [u] = await createUsers(t, [userBody({ role: 'instructor' })])
    const events = await listOutboxEvents(t.tenant)
    expect(events.map((e) => ({ event: e.event, data: e.data }))).toEqual([
      { event: 'user.created', data: { userId: u.id, email: u.email, role: 'instructor' } },
    ])
  })
})

describe('Route: GET /api/v1/users', () => {
  it('lists newest first with base fields only and meta', async () => {
    const t = await newTenant()
    const users = await createUsers(t, [userBody(), userBody(), userBody()])
    const reply = await t.api.get('/api/v1/users')
    expect(reply.status).toBe(200)
    expect(reply.body.meta).toEqual({ page: 1, per_page: 50, total: 3 })
    expect(reply.body.data.map((u: { id: string }) => u.id)).toEqual(users.map((u) => u.id).reverse())
    expect(Object.keys(reply.body.data[0]).sort()).toEqual(baseFields)
  })

  it('sorts by last_name and email in both orders', async () => {
    const t = await newTenant()
    await createUsers(t, [
      userBody({ last_name: 'Bravo', email: 'c@x.com' }),
      userBody({ last_name: 'alpha', email: 'b@x.com' }),
      userBody({ last_name: 'Charlie', email: 'a@x.com' }),
    ])
    const names = (r: { body: { data: { last_name: string; email: string }[] } }) =>
      r.body.data.map((u) => u.last_name)
    expect(names(await t.api.get('/api/v1/users?sort_by=last_name&sort_order=asc'))).toEqual([
      'alpha',
      'Bravo',
      'Charlie',
    ])
    expect(names(await t.api.get('/api/v1/users?sort_by=last_name'))).toEqual(['Charlie', 'Bravo', 'alpha'])
    const emails = (await t.api.get('/api/v1/users?sort_by=email&sort_order=asc')).body.data.map(
      (u: { email: string }) => u.email,
    )
    expect(emails).toEqual(['a@x.com', 'b@x.com', 'c@x.com'])
  })

  it('answers 400 for an invalid sort_by, sort_order, boolean or timestamp', async () => {
    const t = await newTenant()
    for (const [query, field] of [
      ['sort_by=first_name', 'sort_by'],
      ['sort_order=up', 'sort_order'],
      ['is_active=maybe', 'is_active'],
      ['created_after=yesterday', 'created_after'],
      ['role=wizard', 'role'],
      ['group_id=nope', 'group_id'],
      ['page=abc', 'page'],
    ]) {
      const reply = await t.api.get(`/api/v1/users?${query}`)
      expect(reply.status, query).toBe(400)
      expect(reply.body.error.message).toContain(field)
    }
  })

  it('clamps paging, ignores unknown parameters, cursor and fields, and returns [] past the end', async () => {
    const t = await newTenant()
    await createUsers(t, [userBody(), userBody(), userBody()])
    const clamped = await t.api.get('/api/v1/users?per_page=500&page=0&cursor=abc&fields=id&colour=blue')
    expect(clamped.status).toBe(200)
    expect(clamped.body.meta).toEqual({ page: 1, per_page: 200, total: 3 })
    expect(Object.keys(clamped.body.data[0]).sort()).toEqual(baseFields)
    const small = await t.api.get('/api/v1/users?per_page=2&page=2')
    expect(small.body.meta).toEqual({ page: 2, per_page: 2, total: 3 })
    expect(small.body.data).toHaveLength(1)
    const past = await t.api.get('/api/v1/users?per_page=2&page=9')
    expect(past.status).toBe(200)
    expect(past.body.data).toEqual([])
    expect(past.body.meta.total).toBe(3)
    const negative = await t.api.get('/api/v1/users?per_page=-5&page=-1')
    expect(negative.body.meta).toMatchObject({ page: 1, per_page: 1 })
  })

  it('filters by role, is_active, user_type, group_id and creation time, with matching totals', async () => {
    const t = await newTenant()
    const [a, b, c, d] = await createUsers(t, [
      userBody({ role: 'instructor', user_type: 'partner' }),
      userBody({ role: 'learner' }),
      userBody({ role: 'instructor', is_active: false }),
      userBody({ role: 'learner', user_type: 'partner' }),
    ])
    const ids = async (q: string) => {
      const r = await t.api.get(`/api/v1/users?${q}`)
      expect(r.status).toBe(200)
      expect(r.body.meta.total).toBe(r.body.data.length)
      return r.body.data.map((u: { id: string }) => u.id).sort()
    }
    expect(await ids('role=instructor')).toEqual([a.id, c.id].sort())
    expect(await ids('is_active=false')).toEqual([c.id])
    expect(await ids('is_active=true')).toEqual([a.id, b.id, d.id].sort())
    expect(await ids('user_type=partner')).toEqual([a.id, d.id].sort())
    expect(await ids('role=learner&user_type=partner')).toEqual([d.id])
    expect(await ids('role=instructor&is_active=true')).toEqual([a.id])
    expect(await ids('role=instructor&is_active=false')).toEqual([c.id])
    expect(await ids('user_type=internal&is_active=false')).toEqual([c.id])
    expect(await ids(`created_after=${encodeURIComponent(b.created_at)}`)).toEqual([c.id, d.id].sort())
    expect(await ids(`created_before=${encodeURIComponent(b.created_at)}`)).toEqual([a.id])
    expect(await ids(`created_after=${encodeURIComponent(a.created_at)}&sort_by=email`)).toEqual(
      [b.id, c.id, d.id].sort(),
    )
    const g = (await t.api.post('/api/v1/groups', { name: 'G' })).body.data
    await t.api.post(`/api/v1/groups/${g.id}/members`, { user_ids: [a.id, b.id] })
    expect(await ids(`group_id=${g.id}`)).toEqual([a.id, b.id].sort())
    expect(await ids(`group_id=${g.id}&role=learner`)).toEqual([b.id])
    // Totals follow role changes and (de)activations.
    await t.api.patch(`/api/v1/users/${c.id}`, { role: 'learner', is_active: true })
    await t.api.delete(`/api/v1/users/${a.id}`)
    expect(await ids('role=instructor')).toEqual([a.id])
    expect(await ids('role=instructor&is_active=true')).toEqual([])
    expect(await ids('role=learner&is_active=true')).toEqual([b.id, c.id, d.id].sort())
    expect(await ids('is_active=false')).toEqual([a.id])
  })
})

describe('Route: GET /api/v1/users/{id}', () => {
  it('returns a created user in the envelope, and 404 for another tenant', async () => {
    const a = await newTenant()
    const b = await newTenant()
    const created = await a.api.post('/api/v1/users', userBody({ email: 'Grace@Example.com' }))
    const got = await a.api.get(`/api/v1/users/${created.body.data.id}`)
    const cross = await b.api.get(`/api/v1/users/${created.body.data.id}`)
    expect(created.status).toBe(201)
    expect(got.status).toBe(200)
    expect(got.body).toMatchObject({
      meta: null,
      error: null,
      data: { id: created.body.data.id, email: 'grace@example.com' },
    })
    expect(cross.status).toBe(404)
    expect(cross.body).toEqual({ data: null, meta: null, error: { code: 404, message: 'User not found' } })
  })

  it('answers 404 for an id that is not a UUID', async () => {
    const t = await newTenant()
    expect((await t.api.get('/api/v1/users/12345')).status).toBe(404)
  })
})

describe('Route: PATCH /api/v1/users/{id}', () => {
  it('changes only the fields sent', async () => {
    const t = await newTenant()
    const [u] = await createUsers(t, [userBody({ external_id: 'x-1', locale: 'fr-CA' })])
    const reply = await t.api.patch(`/api/v1/users/${u.id}`, { first_name: 'Grace' })
    expect(reply.status).toBe(200)
    expect(reply.body.data).toMatchObject({
      first_name: 'Grace',
      last_name: u.last_name,
      external_id: 'x-1',
      locale: 'fr-CA',
      role: 'learner',
      last_login_at: null,
    })
    expect(reply.body.data.updated_at > u.updated_at).toBe(true)
    const cleared = await t.api.patch(`/api/v1/users/${u.id}`, { external_id: null })
    expect(cleared.body.data.external_id).toBeNull()
    expect(cleared.body.data.first_name).toBe('Grace')
  })

  it('replaces custom_fields whole, and null clears them', async () => {
    const t = await newTenant()
    await putCustomFieldDef(t.tenant, { key: 'a', label: 'A', type: 'string', required: false, options: [] })
    await putCustomFieldDef(t.tenant, { key: 'b', label: 'B', type: 'boolean', required: false, options: [] })
    const [u] = await createUsers(t, [userBody({ custom_fields: { a: 'x', b: true } })])
    const replaced = await t.api.patch(`/api/v1/users/${u.id}`, { custom_fields: { b: false } })
    expect(replaced.body.data.custom_fields).toEqual({ b: false })
    const cleared = await t.api.patch(`/api/v1/users/${u.id}`, { custom_fields: null })
    expect(cleared.body.data.custom_fields).toEqual({})
  })

  it('needs admin to assign a privileged role or to change an admin', async () => {
    const t = await newTenant()
    const writer = client(t.slug, await t.key(['read', 'write']))
    const [learner, admin] = await createUsers(t, [userBody(), userBody({ role: 'admin' })])
    expect((await writer.patch(`/api/v1/users/${learner.id}`, { role: 'manager' })).status).toBe(403)
    expect((await writer.patch(`/api/v1/users/${admin.id}`, { role: 'learner' })).status).toBe(403)
    expect((await writer.patch(`/api/v1/users/${learner.id}`, { role: 'instructor' })).status).toBe(200)
    expect((await t.api.patch(`/api/v1/users/${learner.id}`, { role: 'manager' })).body.data.role).toBe(
      'manager',
    )
    expect((await t.api.get(`/api/v1/users/${admin.id}`)).body.data.role).toBe('admin')
  })

  it('refuses a write key that deactivates or renames a privileged user (the admin-only DELETE by another name): 403 naming the admin scope, user unchanged', async () => {
    // Prepare
    const t = await newTenant()
    const writer = client(t.slug, await t.key(['read', 'write']))
    const privileged = ['manager', 'group_admin', 'ecommerce_admin', 'admin', 'owner']
    const targets = await createUsers(
      t,
      privileged.map((role) => userBody({ role })),
    )

    for (const target of targets) {
      // Act: the attack, then the same change with an admin key
      const deactivate = await writer.patch(`/api/v1/users/${target.id}`, { is_active: false })
      const rename = await writer.patch(`/api/v1/users/${target.id}`, { first_name: 'Mallory' })
      const unchanged = await t.api.get(`/api/v1/users/${target.id}`)
      const byAdmin = await t.api.patch(`/api/v1/users/${target.id}`, {
        first_name: 'Grace',
        is_active: false,
      })

      // Assess
      for (const refused of [deactivate, rename]) {
        expect(refused.status).toBe(403)
        expect(refused.body.error.message).toMatch(/admin scope/)
      }
      expect(unchanged.body.data).toMatchObject({
        role: target.role,
        first_name: target.first_name,
        is_active: true,
        updated_at: target.updated_at,
      })
      expect(byAdmin.status).toBe(200)
      expect(byAdmin.body.data).toMatchObject({ first_name: 'Grace', is_active: false })
    }
    const events = (await listOutboxEvents(t.tenant)).filter((e) => e.event === 'user.deactivated')
    expect(events).toHaveLength(privileged.length)
  })

  it('lets a write key change learners and instructors', async () => {
    const t = await newTenant()
    const writer = client(t.slug, await t.key(['read', 'write']))
    const targets = await createUsers(t, [userBody(), userBody({ role: 'instructor' })])
    for (const target of targets) {
      const renamed = await writer.patch(`/api/v1/users/${target.id}`, {
        first_name: 'Grace',
        is_active: false,
      })
      expect(renamed.status).toBe(200)
      expect(renamed.body.data).toMatchObject({ first_name: 'Grace', is_active: false, role: target.role })
    }
  })

  it('answers 400 naming the field for a bad value and 404 for an unknown user', async () => {
    const t = await newTenant()
    const [u] = await createUsers(t, [userBody()])
    const bad = await t.api.patch(`/api/v1/users/${u.id}`, { is_active: 'no' })
    expect(bad.status).toBe(400)
    expect(bad.body.error.message).toContain('is_active')
    expect((await t.api.patch(`/api/v1/users/${randomUUID()}`, { first_name: 'x' })).status).toBe(404)
  })

  it('deactivates and reactivates with is_active, writing both events', async () => {
    const t = await newTenant()
    const [u] = await createUsers(t, [userBody()])
    const off = await t.api.patch(`/api/v1/users/${u.id}`, { is_active: false })
    const on = await t.api.patch(`/api/v1/users/${u.id}`, { is_active: true })
    expect(off.body.data.is_active).toBe(false)
    expect(on.body.data.is_active).toBe(true)
    const events = (await listOutboxEvents(t.tenant)).map((e) => e.event)
    expect(events).toEqual(['user.created', 'user.deactivated', 'user.reactivated'])
  })
})

describe('Route: DELETE /api/v1/users/{id}', () => {
  it('deactivates softly: 204, the user is kept inactive, user.deactivated once', async () => {
    const t = await newTenant()
    const [u] = await createUsers(t, [userBody()])
    const first = await t.api.delete(`/api/v1/users/${u.id}`)
    const second = await t.api.delete(`/api/v1/users/${u.id}`)
    expect(first.status).toBe(204)
    expect(first.text).toBe('')
    expect(second.status).toBe(204)
    const got = await t.api.get(`/api/v1/users/${u.id}`)
    expect(got.body.data).toMatchObject({ id: u.id, is_active: false, email: u.email })
    const events = (await listOutboxEvents(t.tenant)).filter((e) => e.event === 'user.deactivated')
    expect(events).toHaveLength(1)
    expect(events[0]?.data).toEqual({ userId: u.id, email: u.email })
  })

  it('answers 404 for an unknown user', async () => {
    const t = await newTenant()
    expect((await t.api.delete(`/api/v1/users/${randomUUID()}`)).status).toBe(404)
  })
})

describe('Route: GET /api/v1/users/{id}/transcript', () => {
  it('returns the transcript shape with totals and meta.total', async () => {
    const t = await newTenant()
    const [u] = await createUsers(t, [userBody()])
    const reply = await t.api.get(`/api/v1/users/${u.id}/transcript`)
    expect(reply.status).toBe(200)
    expect(reply.body.meta).toEqual({ total: 0 })
    expect(reply.body.data).toMatchObject({
      user_id: u.id,
      totals: {
        completed: 0,
        in_progress: 0,
        time_spent_seconds: 0,
        ceu_total: 0,
        ceu_label: 'CEU',
        certificates: 0,
      },
      items: [],
    })
    expect(Date.parse(reply.body.data.generated_at)).not.toBeNaN()
  })

  it('downloads CSV with a BOM, CRLF and a header row', async () => {
    const t = await newTenant()
    const [u] = await createUsers(t, [userBody()])
    const reply = await t.api.get(`/api/v1/users/${u.id}/transcript?format=csv`)
    expect(reply.status).toBe(200)
    expect(reply.headers['content-type']).toBe('text/csv; charset=utf-8')
    expect(reply.headers['content-disposition']).toBe(`attachment; filename="transcript-${u.id}.csv"`)
    expect([...reply.raw.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf])
    expect(reply.raw.subarray(3).toString('utf8')).toBe(
      'id,type,item_id,title,status,started_at,completed_at,due_date,expires_at,score_percent,' +
        'time_spent_seconds,progress_percent,certificate_id,certificate_number,ceu_value,ceu_label\r\n',
    )
  })

  it('answers 400 for an invalid filter and 404 for an unknown user', async () => {
    const t = await newTenant()
    const [u] = await createUsers(t, [userBody()])
    const bad = await t.api.get(`/api/v1/users/${u.id}/transcript?status=finished`)
    expect(bad.status).toBe(400)
    expect(bad.body.error.message).toContain('status')
    expect((await t.api.get(`/api/v1/users/${randomUUID()}/transcript`)).status).toBe(404)
  })
})
