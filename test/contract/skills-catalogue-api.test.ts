import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { lms } from '../helpers/cli.ts'
import { userId } from '../helpers/learning.ts'
import { untilAllRelayed } from '../helpers/outbox.ts'
import { put } from '../helpers/skills.ts'
import { newTenant, type TestTenant } from '../helpers/tenants.ts'

type Reply = { status: number; body: { error?: { message?: string } } }

function expectError(reply: Reply, status: number, field?: string) {
  expect(reply.status).toBe(status)
  expect(reply.body).toMatchObject({ data: null, meta: null, error: { code: status } })
  if (field) expect(reply.body.error?.message).toContain(field)
}

async function domain(t: TestTenant, name = `Domain ${randomUUID()}`): Promise<string> {
  const reply = await t.api.post('/api/v1/skill-domains', { name })
  expect(reply.status).toBe(201)
  return reply.body.data.id as string
}

async function skill(t: TestTenant, body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const reply = await t.api.post('/api/v1/skills', body)
  expect(reply.status).toBe(201)
  return reply.body.data as Record<string, unknown>
}

describe('Routes: /api/v1/skill-domains', () => {
  it('creates domains with a French name and lists them by name, paged', async () => {
    const t = await newTenant()
    const created = await t.api.post('/api/v1/skill-domains', {
      name: 'Safety',
      names: { 'fr-CA': 'Sécurité' },
    })
    expect(created.status).toBe(201)
    expect(created.body.data).toEqual({
      id: expect.any(String),
      name: 'Safety',
      names: { 'fr-CA': 'Sécurité' },
    })
    await domain(t, 'Accounting')
    await domain(t, 'Machines')

    const page2 = await t.api.get('/api/v1/skill-domains?page=2&per_page=2')

    expect(page2.status).toBe(200)
    expect(page2.body.meta).toEqual({ page: 2, per_page: 2, total: 3 })
    expect(page2.body.data.map((d: { name: string }) => d.name)).toEqual(['Safety'])
    const all = await t.api.get('/api/v1/skill-domains')
    expect(all.body.meta).toEqual({ page: 1, per_page: 50, total: 3 })
    expect(all.body.data.map((d: { name: string }) => d.name)).toEqual(['Accounting', 'Machines', 'Safety'])
  })

  it('refuses a body without a name or with an unknown field, creating nothing', async () => {
    const t = await newTenant()
    expectError(await t.api.post('/api/v1/skill-domains', {}), 400, 'name')
    expectError(await t.api.post('/api/v1/skill-domains', { name: 'X', colour: 'red' }), 400, 'colour')
    expect((await t.api.get('/api/v1/skill-domains')).body.meta.total).toBe(0)
  })
})

describe('Routes: /api/v1/skills', () => {
  it('creates, gets, lists (by domain, paged) and changes skills', async () => {
    const t = await newTenant()
    const safety = await domain(t)
    const other = await domain(t)
    const s = await skill(t, {
      name: 'Forklift',
      domain_id: safety,
      description: 'Drives a forklift safely',
      names: { 'fr-CA': 'Chariot élévateur' },
    })
    expect(s).toEqual({
      id: expect.any(String),
      domain_id: safety,
      name: 'Forklift',
      names: { 'fr-CA': 'Chariot élévateur' },
      description: 'Drives a forklift safely',
      is_active: true,
      is_critical: false,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    })
    await skill(t, { name: 'Crane', domain_id: safety, is_critical: true })
    await skill(t, { name: 'Ledger', domain_id: other })

    expect((await t.api.get(`/api/v1/skills/${s.id}`)).body.data).toEqual(s)
    const ofSafety = await t.api.get(`/api/v1/skills?domain_id=${safety}&per_page=1`)
    expect(ofSafety.body.meta).toEqual({ page: 1, per_page: 1, total: 2 })
    expect(ofSafety.body.data.map((x: { name: string }) => x.name)).toEqual(['Crane'])
    expect((await t.api.get('/api/v1/skills')).body.meta.total).toBe(3)

    const patched = await t.api.patch(`/api/v1/skills/${s.id}`, {
      name: 'Forklift driving',
      names: { 'fr-CA': null },
      description: null,
      is_active: false,
      is_critical: true,
    })
    expect(patched.status).toBe(200)
    expect(patched.body.data).toMatchObject({
      name: 'Forklift driving',
      names: { 'fr-CA': null },
      description: null,
      is_active: false,
      is_critical: true,
    })
    expect((await t.api.get(`/api/v1/skills/${s.id}`)).body.data).toEqual(patched.body.data)
  })

  it('answers 400 naming domain_id for an unknown domain, and a bad PATCH changes nothing', async () => {
    const t = await newTenant()
    const d = await domain(t)
    expectError(await t.api.post('/api/v1/skills', { name: 'X', domain_id: randomUUID() }), 400, 'domain_id')
    expectError(await t.api.post('/api/v1/skills', { name: 'X', domain_id: 'nope' }), 400, 'domain_id')
    expectError(await t.api.post('/api/v1/skills', { name: '', domain_id: d }), 400, 'name')
    expect((await t.api.get('/api/v1/skills')).body.meta.total).toBe(0)

    const s = await skill(t, { name: 'Welding', domain_id: d })
    expectError(await t.api.patch(`/api/v1/skills/${s.id}`, { is_active: 'no' }), 400, 'is_active')
    expectError(await t.api.patch(`/api/v1/skills/${s.id}`, { domain_id: d }), 400, 'domain_id')
    expect((await t.api.get(`/api/v1/skills/${s.id}`)).body.data).toEqual(s)
  })

  it('allows the same name in two domains and twice in one (the specification sets no rule)', async () => {
    const t = await newTenant()
    const a = await domain(t)
    const b = await domain(t)
    await skill(t, { name: 'First aid', domain_id: a })
    await skill(t, { name: 'First aid', domain_id: b })
    await skill(t, { name: 'First aid', domain_id: a })
    expect((await t.api.get('/api/v1/skills')).body.meta.total).toBe(3)
  })

  it('answers 404 for another tenant’s skill and domain', async () => {
    const t = await newTenant()
    const other = await newTenant()
    const theirDomain = await domain(other)
    const theirs = await skill(other, { name: 'Secret', domain_id: theirDomain })
    expectError(await t.api.get(`/api/v1/skills/${theirs.id}`), 404)
    expectError(await t.api.patch(`/api/v1/skills/${theirs.id}`, { is_active: false }), 404)
    expectError(await t.api.post('/api/v1/skills', { name: 'X', domain_id: theirDomain }), 400, 'domain_id')
    expect((await other.api.get(`/api/v1/skills/${theirs.id}`)).body.data.is_active).toBe(true)
    expect((await t.api.get('/api/v1/skills')).body.meta.total).toBe(0)
  })

  it('lists a skill the operator made with the CLI', async () => {
    const t = await newTenant()
    const d = await domain(t)
    const made = await lms('skill', 'create', '--tenant', t.slug, '--domain', d, '--name', 'Soldering')
    expect(made.code).toBe(0)
    const listed = await t.api.get('/api/v1/skills')
    expect(listed.body.data).toEqual([
      expect.objectContaining({ id: made.json.id, name: 'Soldering', description: null }),
    ])
  })
})

describe('Routes: PUT and DELETE /api/v1/users/{id}/skills/{skill_id}', () => {
  it('records a held level, fires skill.attained when it rises (not by hand), and takes it away', async () => {
    const t = await newTenant()
    const user = await userId(t)
    const s = await skill(t, { name: 'Welding', domain_id: await domain(t) })
    const path = `/api/v1/users/${user}/skills/${s.id}`

    const first = await put(t, path, {
      level: 'developing',
      source: 'assessment',
      valid_until: '2030-01-01T00:00:00Z',
    })
    expect(first.status).toBe(200)
    expect(first.body.data).toEqual({
      user_id: user,
      skill_id: s.id,
      level: 'developing',
      source: 'assessment',
      earned_at: expect.any(String),
      valid_until: '2030-01-01T00:00:00.000Z',
      pending_claim_level: null,
      updated_at: expect.any(String),
    })
    expect((await put(t, path, { level: 'expert', source: 'manual' })).status).toBe(200)
    expect((await put(t, path, { level: 'awareness', source: 'observed' })).status).toBe(200)
    expect((await put(t, path, { level: 'proficient', source: 'validated' })).status).toBe(200)

    const attained = (await untilAllRelayed(t.tenant)).filter((e) => e.event === 'skill.attained')
    expect(attained.map((e) => [e.data.previousLevel, e.data.level, e.data.source])).toEqual([
      [null, 'developing', 'assessment'],
      ['awareness', 'proficient', 'validated'],
    ])
    const view = await t.api.get(`/api/v1/users/${user}/skills`)
    expect(view.body.data.skills).toEqual([
      expect.objectContaining({ skill_id: s.id, attained_level: 'proficient' }),
    ])

    const removed = await t.api.delete(path)
    expect(removed.status).toBe(204)
    expect((await t.api.get(`/api/v1/users/${user}/skills`)).body.data.skills).toEqual([])
    expectError(await t.api.delete(path), 404)
  })

  it('refuses an unknown level or source and unknown fields naming them, changing nothing', async () => {
    const t = await newTenant()
    const user = await userId(t)
    const s = await skill(t, { name: 'Welding', domain_id: await domain(t) })
    const path = `/api/v1/users/${user}/skills/${s.id}`
    expectError(await put(t, path, { level: 'master', source: 'assessment' }), 400, 'level')
    expectError(await put(t, path, { level: 'expert', source: 'rumour' }), 400, 'source')
    expectError(
      await put(t, path, { level: 'expert', source: 'manual', valid_until: 'soon' }),
      400,
      'valid_until',
    )
    expectError(await put(t, path, { level: 'expert', source: 'manual', note: 'x' }), 400, 'note')
    expectError(
      await put(t, `/api/v1/users/${randomUUID()}/skills/${s.id}`, { level: 'expert', source: 'manual' }),
      404,
    )
    expectError(
      await put(t, `/api/v1/users/${user}/skills/${randomUUID()}`, { level: 'expert', source: 'manual' }),
      404,
    )
    expect((await t.api.get(`/api/v1/users/${user}/skills`)).body.data.skills).toEqual([])
    expect((await untilAllRelayed(t.tenant)).filter((e) => e.event === 'skill.attained')).toEqual([])
  })
})

describe('Scopes and plans', () => {
  it('reads with a read key; catalogue writes and removals need admin; a held level needs write', async () => {
    const t = await newTenant()
    const user = await userId(t)
    const d = await domain(t)
    const s = await skill(t, { name: 'Welding', domain_id: d })
    const read = t.api.withKey(await t.key(['read']))
    const write = t.api.withKey(await t.key(['read', 'write']))

    expect((await read.get('/api/v1/skills')).status).toBe(200)
    expect((await read.get('/api/v1/skill-domains')).status).toBe(200)
    expect((await read.get(`/api/v1/skills/${s.id}`)).status).toBe(200)
    expectError(await read.post('/api/v1/skill-domains', { name: 'X' }), 403)
    expectError(await write.post('/api/v1/skill-domains', { name: 'X' }), 403)
    expectError(await write.post('/api/v1/skills', { name: 'X', domain_id: d }), 403)
    expectError(await write.patch(`/api/v1/skills/${s.id}`, { is_active: false }), 403)
    const path = `/api/v1/users/${user}/skills/${s.id}`
    expectError(await put(t, path, { level: 'expert', source: 'manual' }, await t.key(['read'])), 403)
    expect((await put(t, path, { level: 'expert', source: 'manual' }, await t.key(['write']))).status).toBe(
      200,
    )
    expectError(await write.delete(path), 403)

    expect((await t.api.get('/api/v1/skill-domains')).body.meta.total).toBe(1)
    expect((await t.api.get(`/api/v1/skills/${s.id}`)).body.data.is_active).toBe(true)
    expect((await t.api.get(`/api/v1/users/${user}/skills`)).body.data.skills).toHaveLength(1)
  })

  it('answers 403 to a plan without API access (Starter has skills management, not the API)', async () => {
    const t = await newTenant('starter')
    expectError(await t.api.get('/api/v1/skills'), 403)
    expectError(await t.api.post('/api/v1/skill-domains', { name: 'X' }), 403)
  })
})
