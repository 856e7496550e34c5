import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { createGroup as createGroupInStore } from '../../shared/services/groups/groups-service.ts'
import { call, client } from '../helpers/http.ts'
import { userId } from '../helpers/learning.ts'
import { newTenant, userBody, type TestTenant } from '../helpers/tenants.ts'

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/

async function makeGroup(t: TestTenant, body: Record<string, unknown> = {}): Promise<string> {
  const reply = await t.api.post('/api/v1/groups', { name: `Group ${randomUUID()}`, ...body })
  expect(reply.status).toBe(201)
  return reply.body.data.id as string
}

async function makeUsers(t: TestTenant, n: number): Promise<string[]> {
  return Promise.all(Array.from({ length: n }, () => userId(t)))
}

function expectError(reply: { status: number; body: unknown }, status: number) {
  expect(reply.status).toBe(status)
  expect(reply.body).toMatchObject({ data: null, meta: null, error: { code: status } })
  expect(typeof (reply.body as { error: { message: unknown } }).error.message).toBe('string')
}

describe('Route: POST /api/v1/groups', () => {
  it('creates a static group with member_count 0 when given a name and description', async () => {
    // Prepare
    const t = await newTenant()

    // Act
    const reply = await t.api.post('/api/v1/groups', { name: 'Sales Team', description: 'Field sales' })

    // Assess
    expect(reply.status).toBe(201)
    expect(reply.body.meta).toBeNull()
    expect(reply.body.error).toBeNull()
    const g = reply.body.data
    expect(g).toMatchObject({ name: 'Sales Team', description: 'Field sales', member_count: 0 })
    expect(g.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/)
    expect(g.created_at).toMatch(ISO_UTC)
    expect(g.updated_at).toMatch(ISO_UTC)
  })

  it('defaults description to null when it is not sent', async () => {
    // Prepare
    const t = await newTenant()

    // Act
    const reply = await t.api.post('/api/v1/groups', { name: 'No description' })

    // Assess
    expect(reply.status).toBe(201)
    expect(reply.body.data).toMatchObject({ name: 'No description', description: null, member_count: 0 })
  })

  it('returns 400 naming name when the name is missing, empty or blank', async () => {
    // Prepare
    const t = await newTenant()

    // Act
    const missing = await t.api.post('/api/v1/groups', { description: 'x' })
    const empty = await t.api.post('/api/v1/groups', { name: '' })
    const blank = await t.api.post('/api/v1/groups', { name: '   ' })
    const wrongType = await t.api.post('/api/v1/groups', { name: 42 })

    // Assess
    for (const reply of [missing, empty, blank, wrongType]) {
      expectError(reply, 400)
      expect(reply.body.error.message).toContain('name')
    }
    const list = await t.api.get('/api/v1/groups')
    expect(list.body.meta.total).toBe(0)
  })

  it('returns 400 when the body is missing or is not JSON', async () => {
    // Prepare
    const t = await newTenant()

    // Act
    const noBody = await t.api.post('/api/v1/groups')
    const badJson = await t.api.post('/api/v1/groups', undefined, { rawBody: '{"name": ' })

    // Assess
    expectError(noBody, 400)
    expectError(badJson, 400)
  })

  it('returns 409 when the name already exists in the tenant, whatever its case', async () => {
    // Prepare
    const t = await newTenant()
    await makeGroup(t, { name: 'Sales' })

    // Act
    const same = await t.api.post('/api/v1/groups', { name: 'Sales' })
    const otherCase = await t.api.post('/api/v1/groups', { name: 'sALES' })

    // Assess
    expectError(same, 409)
    expectError(otherCase, 409)
    const list = await t.api.get('/api/v1/groups')
    expect(list.body.meta.total).toBe(1)
  })

  it('accepts a name that exists only in another tenant', async () => {
    // Prepare
    const a = await newTenant()
    const b = await newTenant()
    await makeGroup(a, { name: 'Shared name' })

    // Act
    const reply = await b.api.post('/api/v1/groups', { name: 'Shared name' })

    // Assess
    expect(reply.status).toBe(201)
  })
})

describe('Route: GET /api/v1/groups/{id}', () => {
  it('returns the group in the envelope when it exists', async () => {
    // Prepare
    const t = await newTenant()
    const created = await t.api.post('/api/v1/groups', { name: 'Engineering', description: 'Builders' })

    // Act
    const reply = await t.api.get(`/api/v1/groups/${created.body.data.id}`)

    // Assess
    expect(reply.status).toBe(200)
    expect(reply.body).toMatchObject({
      meta: null,
      error: null,
      data: {
        id: created.body.data.id,
        name: 'Engineering',
        description: 'Builders',
        member_count: 0,
        created_at: created.body.data.created_at,
        updated_at: created.body.data.updated_at,
      },
    })
  })

  it('returns 404 when the id is unknown, not a UUID, or belongs to another tenant', async () => {
    // Prepare
    const a = await newTenant()
    const b = await newTenant()
    const foreign = await makeGroup(b)

    // Act
    const unknown = await a.api.get(`/api/v1/groups/${randomUUID()}`)
    const notUuid = await a.api.get('/api/v1/groups/not-a-uuid')
    const cross = await a.api.get(`/api/v1/groups/${foreign}`)

    // Assess
    for (const reply of [unknown, notUuid, cross]) {
      expect(reply.status).toBe(404)
      expect(reply.body).toEqual({ data: null, meta: null, error: { code: 404, message: 'Group not found' } })
    }
  })
})

describe('Route: PATCH /api/v1/groups/{id}', () => {
  it('changes only the fields sent when name or description is patched', async () => {
    // Prepare
    const t = await newTenant()
    const created = await t.api.post('/api/v1/groups', { name: 'Old', description: 'Old text' })
    const id = created.body.data.id

    // Act
    const renamed = await t.api.patch(`/api/v1/groups/${id}`, { name: 'New' })
    const redescribed = await t.api.patch(`/api/v1/groups/${id}`, { description: 'New text' })
    const got = await t.api.get(`/api/v1/groups/${id}`)

    // Assess
    expect(renamed.status).toBe(200)
    expect(renamed.body.data).toMatchObject({ id, name: 'New', description: 'Old text', member_count: 0 })
    expect(redescribed.status).toBe(200)
    expect(redescribed.body.data).toMatchObject({ id, name: 'New', description: 'New text' })
    expect(got.body.data).toMatchObject({
      id,
      name: 'New',
      description: 'New text',
      created_at: created.body.data.created_at,
    })
    expect(got.body.data.updated_at).toMatch(ISO_UTC)
    expect(Date.parse(got.body.data.updated_at)).toBeGreaterThanOrEqual(
      Date.parse(created.body.data.updated_at),
    )
  })

  it('clears the description when description is null', async () => {
    // Prepare
    const t = await newTenant()
    const id = await makeGroup(t, { name: 'Clear me', description: 'something' })

    // Act
    const reply = await t.api.patch(`/api/v1/groups/${id}`, { description: null })
    const got = await t.api.get(`/api/v1/groups/${id}`)

    // Assess
    expect(reply.status).toBe(200)
    expect(reply.body.data).toMatchObject({ id, name: 'Clear me', description: null })
    expect(got.body.data.description).toBeNull()
  })

  it('returns 409 when renaming to a name another group holds, whatever its case', async () => {
    // Prepare
    const t = await newTenant()
    await makeGroup(t, { name: 'Taken' })
    const id = await makeGroup(t, { name: 'Mine' })

    // Act
    const same = await t.api.patch(`/api/v1/groups/${id}`, { name: 'Taken' })
    const otherCase = await t.api.patch(`/api/v1/groups/${id}`, { name: 'TAKEN' })
    const got = await t.api.get(`/api/v1/groups/${id}`)

    // Assess
    expectError(same, 409)
    expectError(otherCase, 409)
    expect(got.body.data.name).toBe('Mine')
  })

  it('accepts a change of case of the group’s own name', async () => {
    // Prepare
    const t = await newTenant()
    const id = await makeGroup(t, { name: 'support' })

    // Act
    const reply = await t.api.patch(`/api/v1/groups/${id}`, { name: 'Support' })

    // Assess
    expect(reply.status).toBe(200)
    expect(reply.body.data.name).toBe('Support')
  })

  it('frees the old name when a group is renamed', async () => {
    // Prepare
    const t = await newTenant()
    const id = await makeGroup(t, { name: 'Before' })
    await t.api.patch(`/api/v1/groups/${id}`, { name: 'After' })

    // Act
    const reply = await t.api.post('/api/v1/groups', { name: 'Before' })

    // Assess
    expect(reply.status).toBe(201)
  })

  it('returns 400 naming name when the new name is empty', async () => {
    // Prepare
    const t = await newTenant()
    const id = await makeGroup(t, { name: 'Keep' })

    // Act
    const reply = await t.api.patch(`/api/v1/groups/${id}`, { name: '' })

    // Assess
    expectError(reply, 400)
    expect(reply.body.error.message).toContain('name')
  })

  it('returns 404 when the group is unknown or belongs to another tenant', async () => {
    // Prepare
    const a = await newTenant()
    const b = await newTenant()
    const foreign = await makeGroup(b, { name: 'Theirs' })

    // Act
    const unknown = await a.api.patch(`/api/v1/groups/${randomUUID()}`, { name: 'x' })
    const cross = await a.api.patch(`/api/v1/groups/${foreign}`, { name: 'Hijacked' })

    // Assess
    expectError(unknown, 404)
    expectError(cross, 404)
    const still = await b.api.get(`/api/v1/groups/${foreign}`)
    expect(still.body.data.name).toBe('Theirs')
  })
})

describe('Route: DELETE /api/v1/groups/{id}', () => {
  it('returns 403 naming the admin scope when the key has only read and write', async () => {
    // Prepare
    const t = await newTenant()
    const id = await makeGroup(t)
    const readWrite = client(t.slug, await t.key(['read', 'write']))

    // Act
    const reply = await readWrite.delete(`/api/v1/groups/${id}`)

    // Assess
    expectError(reply, 403)
    expect(reply.body.error.message).toContain('admin')
    const still = await t.api.get(`/api/v1/groups/${id}`)
    expect(still.status).toBe(200)
  })

  it('returns 204 and hides the group from get, list and member routes when deleted', async () => {
    // Prepare
    const t = await newTenant()
    const id = await makeGroup(t, { name: 'Doomed' })
    const keep = await makeGroup(t, { name: 'Kept' })

    // Act
    const reply = await t.api.delete(`/api/v1/groups/${id}`)

    // Assess
    expect(reply.status).toBe(204)
    expect(reply.text).toBe('')
    expectError(await t.api.get(`/api/v1/groups/${id}`), 404)
    expectError(await t.api.get(`/api/v1/groups/${id}/members`), 404)
    expectError(await t.api.patch(`/api/v1/groups/${id}`, { name: 'Revived' }), 404)
    expectError(await t.api.delete(`/api/v1/groups/${id}`), 404)
    const list = await t.api.get('/api/v1/groups')
    expect(list.body.data.map((g: { id: string }) => g.id)).toEqual([keep])
    expect(list.body.meta.total).toBe(1)
    const searched = await t.api.get('/api/v1/groups?search=doomed')
    expect(searched.body.data).toEqual([])
    expect(searched.body.meta.total).toBe(0)
  })

  it('makes the name reusable when the group is deleted', async () => {
    // Prepare
    const t = await newTenant()
    const id = await makeGroup(t, { name: 'Recycled' })
    await t.api.delete(`/api/v1/groups/${id}`)

    // Act
    const same = await t.api.post('/api/v1/groups', { name: 'Recycled' })
    const otherCase = await t.api.post('/api/v1/groups', { name: 'RECYCLED' })

    // Assess
    expect(same.status).toBe(201)
    expect(same.body.data.id).not.toBe(id)
    expect(same.body.data.member_count).toBe(0)
    expectError(otherCase, 409)
  })

  it('keeps the users but removes the group from their group_ids when the group is deleted', async () => {
    // Prepare
    const t = await newTenant()
    const id = await makeGroup(t)
    const other = await makeGroup(t)
    const [u1, u2] = await makeUsers(t, 2)
    await t.api.post(`/api/v1/groups/${id}/members`, { user_ids: [u1, u2] })
    await t.api.post(`/api/v1/groups/${other}/members`, { user_ids: [u1] })
    const before = await t.api.get(`/api/v1/users/${u1}`)

    // Act
    const reply = await t.api.delete(`/api/v1/groups/${id}`)

    // Assess
    expect(reply.status).toBe(204)
    expect(before.body.data.group_ids).toEqual(expect.arrayContaining([id, other]))
    const user1 = await t.api.get(`/api/v1/users/${u1}`)
    const user2 = await t.api.get(`/api/v1/users/${u2}`)
    expect(user1.status).toBe(200)
    expect(user2.status).toBe(200)
    expect(user1.body.data.group_ids).toEqual([other])
    expect(user2.body.data.group_ids).toEqual([])
    const byGroup = await t.api.get(`/api/v1/users?group_id=${id}`)
    expect(byGroup.status).toBe(200)
    expect(byGroup.body.data).toEqual([])
    const otherGroup = await t.api.get(`/api/v1/groups/${other}`)
    expect(otherGroup.body.data.member_count).toBe(1)
  })

  it('returns 404 when the group belongs to another tenant', async () => {
    // Prepare
    const a = await newTenant()
    const b = await newTenant()
    const foreign = await makeGroup(b)

    // Act
    const reply = await a.api.delete(`/api/v1/groups/${foreign}`)

    // Assess
    expectError(reply, 404)
    expect((await b.api.get(`/api/v1/groups/${foreign}`)).status).toBe(200)
  })
})

describe('Route: GET /api/v1/groups', () => {
  it('sorts by created_at ascending by default and honours sort_by and sort_order', async () => {
    // Prepare
    const t = await newTenant()
    const charlie = await makeGroup(t, { name: 'Charlie' })
    const alpha = await makeGroup(t, { name: 'Alpha' })
    const bravo = await makeGroup(t, { name: 'Bravo' })
    const ids = (r: { body: { data: { id: string }[] } }) => r.body.data.map((g) => g.id)

    // Act
    const byDefault = await t.api.get('/api/v1/groups')
    const createdDesc = await t.api.get('/api/v1/groups?sort_order=desc')
    const byName = await t.api.get('/api/v1/groups?sort_by=name')
    const byNameDesc = await t.api.get('/api/v1/groups?sort_by=name&sort_order=desc')
    const byCreated = await t.api.get('/api/v1/groups?sort_by=created_at&sort_order=asc')

    // Assess
    expect(byDefault.status).toBe(200)
    expect(byDefault.body.error).toBeNull()
    expect(ids(byDefault)).toEqual([charlie, alpha, bravo])
    expect(ids(createdDesc)).toEqual([bravo, alpha, charlie])
    expect(ids(byName)).toEqual([alpha, bravo, charlie])
    expect(ids(byNameDesc)).toEqual([charlie, bravo, alpha])
    expect(ids(byCreated)).toEqual([charlie, alpha, bravo])
  })

  it('returns list items with the group fields', async () => {
    // Prepare
    const t = await newTenant()
    const created = await t.api.post('/api/v1/groups', { name: 'Listed', description: 'd' })

    // Act
    const reply = await t.api.get('/api/v1/groups')

    // Assess
    expect(reply.body.data).toHaveLength(1)
    expect(reply.body.data[0]).toMatchObject({
      id: created.body.data.id,
      name: 'Listed',
      description: 'd',
      member_count: 0,
      created_at: created.body.data.created_at,
      updated_at: created.body.data.updated_at,
    })
  })

  it('returns 400 naming the parameter when sort_by or sort_order is invalid', async () => {
    // Prepare
    const t = await newTenant()
    await makeGroup(t)

    // Act
    const badBy = await t.api.get('/api/v1/groups?sort_by=member_count')
    const badOrder = await t.api.get('/api/v1/groups?sort_order=up')

    // Assess
    expectError(badBy, 400)
    expect(badBy.body.error.message).toContain('sort_by')
    expectError(badOrder, 400)
    expect(badOrder.body.error.message).toContain('sort_order')
  })

  it('filters by name case-insensitively when search is given', async () => {
    // Prepare
    const t = await newTenant()
    const sales = await makeGroup(t, { name: 'Sales Team' })
    const wholesale = await makeGroup(t, { name: 'Wholesale' })
    await makeGroup(t, { name: 'Marketing', description: 'sales support' })

    // Act
    const lower = await t.api.get('/api/v1/groups?search=sale')
    const upper = await t.api.get('/api/v1/groups?search=SALES%20TEAM')
    const none = await t.api.get('/api/v1/groups?search=zzz')

    // Assess
    expect(lower.body.data.map((g: { id: string }) => g.id)).toEqual([sales, wholesale])
    expect(lower.body.meta.total).toBe(2)
    expect(upper.body.data.map((g: { id: string }) => g.id)).toEqual([sales])
    expect(upper.body.meta.total).toBe(1)
    expect(none.status).toBe(200)
    expect(none.body.data).toEqual([])
    expect(none.body.meta.total).toBe(0)
  })

  it('pages with meta {page, per_page, total} and clamps out-of-range values', async () => {
    // Prepare
    const t = await newTenant()
    const ids: string[] = []
    for (let i = 0; i < 5; i++) ids.push(await makeGroup(t, { name: `Group ${i}` }))

    // Act
    const byDefault = await t.api.get('/api/v1/groups')
    const page2 = await t.api.get('/api/v1/groups?per_page=2&page=2')
    const page3 = await t.api.get('/api/v1/groups?per_page=2&page=3')
    const pastEnd = await t.api.get('/api/v1/groups?per_page=2&page=4')
    const tooBig = await t.api.get('/api/v1/groups?per_page=500')
    const pageZero = await t.api.get('/api/v1/groups?page=0&per_page=2')
    const ignored = await t.api.get('/api/v1/groups?cursor=abc&fields=name&foo=bar')

    // Assess
    expect(byDefault.body.meta).toEqual({ page: 1, per_page: 50, total: 5 })
    expect(byDefault.body.data).toHaveLength(5)
    expect(page2.body.meta).toEqual({ page: 2, per_page: 2, total: 5 })
    expect(page2.body.data.map((g: { id: string }) => g.id)).toEqual(ids.slice(2, 4))
    expect(page3.body.data.map((g: { id: string }) => g.id)).toEqual(ids.slice(4))
    expect(pastEnd.status).toBe(200)
    expect(pastEnd.body.data).toEqual([])
    expect(pastEnd.body.meta).toEqual({ page: 4, per_page: 2, total: 5 })
    expect(tooBig.status).toBe(200)
    expect(tooBig.body.meta).toEqual({ page: 1, per_page: 200, total: 5 })
    expect(pageZero.status).toBe(200)
    expect(pageZero.body.meta).toEqual({ page: 1, per_page: 2, total: 5 })
    expect(pageZero.body.data.map((g: { id: string }) => g.id)).toEqual(ids.slice(0, 2))
    expect(ignored.status).toBe(200)
    expect(ignored.body.meta.total).toBe(5)
  })

  it('lists only the groups of the calling tenant', async () => {
    // Prepare
    const a = await newTenant()
    const b = await newTenant()
    const mine = await makeGroup(a)
    await makeGroup(b)

    // Act
    const reply = await a.api.get('/api/v1/groups')

    // Assess
    expect(reply.body.data.map((g: { id: string }) => g.id)).toEqual([mine])
    expect(reply.body.meta.total).toBe(1)
  })
})

describe('Route: POST /api/v1/groups/{id}/members', () => {
  it('returns 200 {added, skipped} and updates member_count when users are added', async () => {
    // Prepare
    const t = await newTenant()
    const id = await makeGroup(t)
    const [u1, u2, u3] = await makeUsers(t, 3)

    // Act
    const first = await t.api.post(`/api/v1/groups/${id}/members`, { user_ids: [u1, u2] })
    const second = await t.api.post(`/api/v1/groups/${id}/members`, { user_ids: [u2, u3] })

    // Assess
    expect(first.status).toBe(200)
    expect(first.body).toEqual({ data: { added: 2, skipped: 0 }, meta: null, error: null })
    expect(second.status).toBe(200)
    expect(second.body.data).toEqual({ added: 1, skipped: 1 })
    const group = await t.api.get(`/api/v1/groups/${id}`)
    expect(group.body.data.member_count).toBe(3)
    const user = await t.api.get(`/api/v1/users/${u3}`)
    expect(user.body.data.group_ids).toEqual([id])
  })

  it('skips unknown ids, other tenants’ users and inactive users silently', async () => {
    // Prepare
    const a = await newTenant()
    const b = await newTenant()
    const id = await makeGroup(a)
    const [active, deactivated] = await makeUsers(a, 2)
    const created = await a.api.post('/api/v1/users', userBody({ is_active: false }))
    const inactive = created.body.data.id
    expect((await a.api.delete(`/api/v1/users/${deactivated}`)).status).toBe(204)
    const foreign = await userId(b)

    // Act
    const reply = await a.api.post(`/api/v1/groups/${id}/members`, {
      user_ids: [active, deactivated, inactive, foreign, randomUUID()],
    })

    // Assess
    expect(reply.status).toBe(200)
    expect(reply.body.data).toEqual({ added: 1, skipped: 4 })
    const group = await a.api.get(`/api/v1/groups/${id}`)
    expect(group.body.data.member_count).toBe(1)
    const members = await a.api.get(`/api/v1/groups/${id}/members`)
    expect(members.body.data.map((m: { id: string }) => m.id)).toEqual([active])
    const foreignUser = await b.api.get(`/api/v1/users/${foreign}`)
    expect(foreignUser.body.data.group_ids).toEqual([])
  })

  it('counts a repeated id once when the same user appears twice in one request', async () => {
    // Prepare
    const t = await newTenant()
    const id = await makeGroup(t)
    const [u1] = await makeUsers(t, 1)

    // Act
    const reply = await t.api.post(`/api/v1/groups/${id}/members`, { user_ids: [u1, u1] })

    // Assess
    expect(reply.status).toBe(200)
    expect(reply.body.data.added).toBe(1)
    expect(reply.body.data.added + reply.body.data.skipped).toBe(2)
    const group = await t.api.get(`/api/v1/groups/${id}`)
    expect(group.body.data.member_count).toBe(1)
  })

  it('returns 400 naming user_ids when user_ids is missing, empty, over 500 or holds a non-UUID', async () => {
    // Prepare
    const t = await newTenant()
    const id = await makeGroup(t)
    const [u1] = await makeUsers(t, 1)
    const tooMany = Array.from({ length: 501 }, () => randomUUID())

    // Act
    const missing = await t.api.post(`/api/v1/groups/${id}/members`, {})
    const empty = await t.api.post(`/api/v1/groups/${id}/members`, { user_ids: [] })
    const over = await t.api.post(`/api/v1/groups/${id}/members`, { user_ids: tooMany })
    const notUuid = await t.api.post(`/api/v1/groups/${id}/members`, { user_ids: [u1, 'not-a-uuid'] })
    const notArray = await t.api.post(`/api/v1/groups/${id}/members`, { user_ids: u1 })

    // Assess
    for (const reply of [missing, empty, over, notUuid, notArray]) {
      expectError(reply, 400)
      expect(reply.body.error.message).toContain('user_ids')
    }
    const group = await t.api.get(`/api/v1/groups/${id}`)
    expect(group.body.data.member_count).toBe(0)
  })

  it('accepts exactly 500 ids', async () => {
    // Prepare
    const t = await newTenant()
    const id = await makeGroup(t)
    const [u1] = await makeUsers(t, 1)
    const ids = [u1, ...Array.from({ length: 499 }, () => randomUUID())]

    // Act
    const reply = await t.api.post(`/api/v1/groups/${id}/members`, { user_ids: ids })

    // Assess
    expect(reply.status).toBe(200)
    expect(reply.body.data).toEqual({ added: 1, skipped: 499 })
  })

  it('returns 400 when the request has no body', async () => {
    // Prepare
    const t = await newTenant()
    const id = await makeGroup(t)

    // Act
    const reply = await t.api.post(`/api/v1/groups/${id}/members`)

    // Assess
    expectError(reply, 400)
  })

  it('returns 404 when the group is unknown, deleted or belongs to another tenant', async () => {
    // Prepare
    const a = await newTenant()
    const b = await newTenant()
    const [u1] = await makeUsers(a, 1)
    const foreign = await makeGroup(b)
    const deleted = await makeGroup(a)
    await a.api.delete(`/api/v1/groups/${deleted}`)

    // Act
    const unknown = await a.api.post(`/api/v1/groups/${randomUUID()}/members`, { user_ids: [u1] })
    const gone = await a.api.post(`/api/v1/groups/${deleted}/members`, { user_ids: [u1] })
    const cross = await a.api.post(`/api/v1/groups/${foreign}/members`, { user_ids: [u1] })

    // Assess
    expectError(unknown, 404)
    expectError(gone, 404)
    expectError(cross, 404)
    const user = await a.api.get(`/api/v1/users/${u1}`)
    expect(user.body.data.group_ids).toEqual([])
  })

  it('returns 422 when the group is dynamic', async () => {
    // Prepare
    const t = await newTenant()
    const [u1] = await makeUsers(t, 1)
    const dynamic = await createGroupInStore(
      t.tenant,
      { name: 'All learners' },
      { attribute: 'role', equals: 'learner' },
    )

    // Act
    const reply = await t.api.post(`/api/v1/groups/${dynamic.id}/members`, { user_ids: [u1] })

    // Assess
    expectError(reply, 422)
    const user = await t.api.get(`/api/v1/users/${u1}`)
    expect(user.body.data.group_ids).toEqual([])
  })

  it('ends with member_count equal to the distinct members when 20 overlapping adds run in parallel', async () => {
    // Prepare
    const t = await newTenant()
    const id = await makeGroup(t)
    const users = await makeUsers(t, 30)
    // Request i adds a window of 8 users starting at i: windows overlap, and together cover users[0..26].
    const batches = Array.from({ length: 20 }, (_, i) => users.slice(i, i + 8))
    const distinct = new Set(batches.flat())

    // Act
    const replies = await Promise.all(
      batches.map((user_ids) => t.api.post(`/api/v1/groups/${id}/members`, { user_ids })),
    )

    // Assess
    for (const reply of replies) expect(reply.status).toBe(200)
    const added = replies.reduce((sum, r) => sum + (r.body.data.added as number), 0)
    const skipped = replies.reduce((sum, r) => sum + (r.body.data.skipped as number), 0)
    expect(added).toBe(distinct.size)
    expect(added + skipped).toBe(batches.flat().length)
    const group = await t.api.get(`/api/v1/groups/${id}`)
    expect(group.body.data.member_count).toBe(distinct.size)
    const members = await t.api.get(`/api/v1/groups/${id}/members?per_page=200`)
    expect(members.body.meta.total).toBe(distinct.size)
    expect(new Set(members.body.data.map((m: { id: string }) => m.id))).toEqual(distinct)
  })
})

describe('Route: GET /api/v1/groups/{id}/members', () => {
  it('returns member items {id, email, first_name, last_name, role, added_at} with meta', async () => {
    // Prepare
    const t = await newTenant()
    const id = await makeGroup(t)
    const body = userBody({ first_name: 'Grace', last_name: 'Hopper', role: 'instructor' })
    const user = await t.api.post('/api/v1/users', body)
    await t.api.post(`/api/v1/groups/${id}/members`, { user_ids: [user.body.data.id] })

    // Act
    const reply = await t.api.get(`/api/v1/groups/${id}/members`)

    // Assess
    expect(reply.status).toBe(200)
    expect(reply.body.error).toBeNull()
    expect(reply.body.meta).toEqual({ page: 1, per_page: 50, total: 1 })
    expect(reply.body.data).toHaveLength(1)
    const item = reply.body.data[0]
    expect(item).toMatchObject({
      id: user.body.data.id,
      email: body.email,
      first_name: 'Grace',
      last_name: 'Hopper',
      role: 'instructor',
    })
    expect(item.added_at).toMatch(ISO_UTC)
  })

  it('returns an empty list when the group has no members', async () => {
    // Prepare
    const t = await newTenant()
    const id = await makeGroup(t)

    // Act
    const reply = await t.api.get(`/api/v1/groups/${id}/members`)

    // Assess
    expect(reply.status).toBe(200)
    expect(reply.body.data).toEqual([])
    expect(reply.body.meta).toEqual({ page: 1, per_page: 50, total: 0 })
  })

  it('filters by member name or e-mail case-insensitively when search is given', async () => {
    // Prepare
    const t = await newTenant()
    const id = await makeGroup(t)
    const grace = await userId(t, {
      first_name: 'Grace',
      last_name: 'Hopper',
      email: 'admiral@navy.example',
    })
    const alan = await userId(t, {
      first_name: 'Alan',
      last_name: 'Turing',
      email: 'alan@bletchley.example',
    })
    const outsider = await userId(t, { first_name: 'Grace', last_name: 'Outsider' })
    await t.api.post(`/api/v1/groups/${id}/members`, { user_ids: [grace, alan] })

    // Act
    const byFirst = await t.api.get(`/api/v1/groups/${id}/members?search=grace`)
    const byLast = await t.api.get(`/api/v1/groups/${id}/members?search=TURING`)
    const byEmail = await t.api.get(`/api/v1/groups/${id}/members?search=navy.example`)
    const none = await t.api.get(`/api/v1/groups/${id}/members?search=nobody`)

    // Assess
    expect(byFirst.body.data.map((m: { id: string }) => m.id)).toEqual([grace])
    expect(byFirst.body.meta.total).toBe(1)
    expect(byLast.body.data.map((m: { id: string }) => m.id)).toEqual([alan])
    expect(byEmail.body.data.map((m: { id: string }) => m.id)).toEqual([grace])
    expect(none.body.data).toEqual([])
    expect(none.body.meta.total).toBe(0)
    expect(byFirst.body.data.map((m: { id: string }) => m.id)).not.toContain(outsider)
  })

  it('pages the members with meta and clamping', async () => {
    // Prepare
    const t = await newTenant()
    const id = await makeGroup(t)
    const users = await makeUsers(t, 5)
    await t.api.post(`/api/v1/groups/${id}/members`, { user_ids: users })

    // Act
    const page2 = await t.api.get(`/api/v1/groups/${id}/members?per_page=2&page=2`)
    const pastEnd = await t.api.get(`/api/v1/groups/${id}/members?per_page=2&page=9`)
    const clamped = await t.api.get(`/api/v1/groups/${id}/members?per_page=500&page=0`)

    // Assess
    expect(page2.body.meta).toEqual({ page: 2, per_page: 2, total: 5 })
    expect(page2.body.data).toHaveLength(2)
    expect(pastEnd.status).toBe(200)
    expect(pastEnd.body.data).toEqual([])
    expect(pastEnd.body.meta).toEqual({ page: 9, per_page: 2, total: 5 })
    expect(clamped.body.meta).toEqual({ page: 1, per_page: 200, total: 5 })
    expect(new Set(clamped.body.data.map((m: { id: string }) => m.id))).toEqual(new Set(users))
  })

  it('returns 404 when the group is unknown, not a UUID or belongs to another tenant', async () => {
    // Prepare
    const a = await newTenant()
    const b = await newTenant()
    const foreign = await makeGroup(b)

    // Act
    const unknown = await a.api.get(`/api/v1/groups/${randomUUID()}/members`)
    const notUuid = await a.api.get('/api/v1/groups/nope/members')
    const cross = await a.api.get(`/api/v1/groups/${foreign}/members`)

    // Assess
    expectError(unknown, 404)
    expectError(notUuid, 404)
    expectError(cross, 404)
  })
})

describe('Route: DELETE /api/v1/groups/{id}/members', () => {
  it('returns 200 {removed, skipped} and updates member_count when members are removed', async () => {
    // Prepare
    const t = await newTenant()
    const id = await makeGroup(t)
    const [u1, u2, u3] = await makeUsers(t, 3)
    await t.api.post(`/api/v1/groups/${id}/members`, { user_ids: [u1, u2] })

    // Act
    const reply = await t.api.delete(`/api/v1/groups/${id}/members`, { user_ids: [u1, u3, randomUUID()] })

    // Assess
    expect(reply.status).toBe(200)
    expect(reply.body).toEqual({ data: { removed: 1, skipped: 2 }, meta: null, error: null })
    const group = await t.api.get(`/api/v1/groups/${id}`)
    expect(group.body.data.member_count).toBe(1)
    const members = await t.api.get(`/api/v1/groups/${id}/members`)
    expect(members.body.data.map((m: { id: string }) => m.id)).toEqual([u2])
    const user1 = await t.api.get(`/api/v1/users/${u1}`)
    expect(user1.status).toBe(200)
    expect(user1.body.data.group_ids).toEqual([])
  })

  it('removes members with a key that has only the write scope', async () => {
    // Prepare
    const t = await newTenant()
    const id = await makeGroup(t)
    const [u1] = await makeUsers(t, 1)
    await t.api.post(`/api/v1/groups/${id}/members`, { user_ids: [u1] })
    const writeOnly = client(t.slug, await t.key(['write']))

    // Act
    const reply = await writeOnly.delete(`/api/v1/groups/${id}/members`, { user_ids: [u1] })

    // Assess
    expect(reply.status).toBe(200)
    expect(reply.body.data).toEqual({ removed: 1, skipped: 0 })
    expect((await t.api.get(`/api/v1/groups/${id}`)).body.data.member_count).toBe(0)
  })

  it('lets a removed member be added again', async () => {
    // Prepare
    const t = await newTenant()
    const id = await makeGroup(t)
    const [u1] = await makeUsers(t, 1)
    await t.api.post(`/api/v1/groups/${id}/members`, { user_ids: [u1] })
    await t.api.delete(`/api/v1/groups/${id}/members`, { user_ids: [u1] })

    // Act
    const reply = await t.api.post(`/api/v1/groups/${id}/members`, { user_ids: [u1] })

    // Assess
    expect(reply.body.data).toEqual({ added: 1, skipped: 0 })
    expect((await t.api.get(`/api/v1/groups/${id}`)).body.data.member_count).toBe(1)
  })

  it('returns 400 naming user_ids when user_ids is over 500 or holds a non-UUID', async () => {
    // Prepare
    const t = await newTenant()
    const id = await makeGroup(t)
    const [u1] = await makeUsers(t, 1)
    await t.api.post(`/api/v1/groups/${id}/members`, { user_ids: [u1] })
    const tooMany = [u1, ...Array.from({ length: 500 }, () => randomUUID())]

    // Act
    const over = await t.api.delete(`/api/v1/groups/${id}/members`, { user_ids: tooMany })
    const notUuid = await t.api.delete(`/api/v1/groups/${id}/members`, { user_ids: [u1, 'x'] })

    // Assess
    for (const reply of [over, notUuid]) {
      expectError(reply, 400)
      expect(reply.body.error.message).toContain('user_ids')
    }
    expect((await t.api.get(`/api/v1/groups/${id}`)).body.data.member_count).toBe(1)
  })

  it('returns 404 when the group is unknown or belongs to another tenant', async () => {
    // Prepare
    const a = await newTenant()
    const b = await newTenant()
    const foreign = await makeGroup(b)
    const [u1] = await makeUsers(b, 1)
    await b.api.post(`/api/v1/groups/${foreign}/members`, { user_ids: [u1] })

    // Act
    const unknown = await a.api.delete(`/api/v1/groups/${randomUUID()}/members`, { user_ids: [u1] })
    const cross = await a.api.delete(`/api/v1/groups/${foreign}/members`, { user_ids: [u1] })

    // Assess
    expectError(unknown, 404)
    expectError(cross, 404)
    expect((await b.api.get(`/api/v1/groups/${foreign}`)).body.data.member_count).toBe(1)
  })

  it('returns 422 when the group is dynamic', async () => {
    // Prepare
    const t = await newTenant()
    const [u1] = await makeUsers(t, 1)
    const dynamic = await createGroupInStore(
      t.tenant,
      { name: 'Learners rule' },
      { attribute: 'role', equals: 'learner' },
    )

    // Act
    const reply = await t.api.delete(`/api/v1/groups/${dynamic.id}/members`, { user_ids: [u1] })

    // Assess
    expectError(reply, 422)
    const group = await t.api.get(`/api/v1/groups/${dynamic.id}`)
    expect(group.status).toBe(200)
    expect(group.body.data.member_count).toBe(1)
  })
})

describe('Route: all group routes (authentication and scopes)', () => {
  it('returns 401 with WWW-Authenticate when no key is sent', async () => {
    // Prepare
    const t = await newTenant()
    const id = await makeGroup(t)
    const host = `${t.slug}.localhost`

    // Act
    const replies = await Promise.all([
      call('GET', '/api/v1/groups', { host }),
      call('POST', '/api/v1/groups', { host, body: { name: 'x' } }),
      call('GET', `/api/v1/groups/${id}`, { host }),
      call('PATCH', `/api/v1/groups/${id}`, { host, body: { name: 'y' } }),
      call('DELETE', `/api/v1/groups/${id}`, { host }),
      call('GET', `/api/v1/groups/${id}/members`, { host }),
      call('POST', `/api/v1/groups/${id}/members`, { host, body: { user_ids: [randomUUID()] } }),
      call('DELETE', `/api/v1/groups/${id}/members`, { host, body: { user_ids: [randomUUID()] } }),
    ])

    // Assess
    for (const reply of replies) {
      expectError(reply, 401)
      expect(reply.headers['www-authenticate']).toBe('Bearer')
    }
  })

  it('returns 403 naming the missing scope when the key lacks the route’s scope', async () => {
    // Prepare
    const t = await newTenant()
    const id = await makeGroup(t)
    const readOnly = client(t.slug, await t.key(['read']))
    const writeOnly = client(t.slug, await t.key(['write']))
    const body = { user_ids: [randomUUID()] }

    // Act
    const needWrite = await Promise.all([
      readOnly.post('/api/v1/groups', { name: 'x' }),
      readOnly.patch(`/api/v1/groups/${id}`, { name: 'y' }),
      readOnly.post(`/api/v1/groups/${id}/members`, body),
      readOnly.delete(`/api/v1/groups/${id}/members`, body),
    ])
    const needRead = await Promise.all([
      writeOnly.get('/api/v1/groups'),
      writeOnly.get(`/api/v1/groups/${id}`),
      writeOnly.get(`/api/v1/groups/${id}/members`),
    ])
    const needAdmin = await writeOnly.delete(`/api/v1/groups/${id}`)

    // Assess
    for (const reply of needWrite) {
      expectError(reply, 403)
      expect(reply.body.error.message).toContain('write')
    }
    for (const reply of needRead) {
      expectError(reply, 403)
      expect(reply.body.error.message).toContain('read')
    }
    expectError(needAdmin, 403)
    expect(needAdmin.body.error.message).toContain('admin')
    const list = await t.api.get('/api/v1/groups')
    expect(list.body.meta.total).toBe(1)
  })

  it('serves the read routes to a read-only key and the write routes to a write-only key', async () => {
    // Prepare
    const t = await newTenant()
    const id = await makeGroup(t)
    const readOnly = client(t.slug, await t.key(['read']))
    const writeOnly = client(t.slug, await t.key(['write']))

    // Act
    const list = await readOnly.get('/api/v1/groups')
    const get = await readOnly.get(`/api/v1/groups/${id}`)
    const members = await readOnly.get(`/api/v1/groups/${id}/members`)
    const created = await writeOnly.post('/api/v1/groups', { name: 'Written' })
    const patched = await writeOnly.patch(`/api/v1/groups/${id}`, { description: 'patched' })

    // Assess
    expect([list.status, get.status, members.status]).toEqual([200, 200, 200])
    expect(created.status).toBe(201)
    expect(patched.status).toBe(200)
  })
})
