import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { assignRole, unassignRole } from '../../shared/services/skills/job-roles-service.ts'
import { updateSkill } from '../../shared/services/skills/skills-service.ts'
import { lms } from '../helpers/cli.ts'
import { untilAllRelayed } from '../helpers/outbox.ts'
import { makeDomain, makeSkill, put } from '../helpers/skills.ts'
import { userId } from '../helpers/learning.ts'
import { newTenant, type TestTenant } from '../helpers/tenants.ts'

async function makeRole(t: TestTenant, body: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
  const reply = await t.api.post('/api/v1/job-roles', { name: `Role ${randomUUID()}`, ...body })
  expect(reply.status).toBe(201)
  return reply.body.data as Record<string, unknown>
}

function expectError(reply: { status: number; body: { error?: { message?: string } } }, status: number) {
  expect(reply.status).toBe(status)
  expect(reply.body).toMatchObject({ data: null, meta: null, error: { code: status } })
}

describe('Route: POST /api/v1/job-roles', () => {
  it('creates a role with its required skills, active, held by nobody', async () => {
    const t = await newTenant()
    const d = await makeDomain(t.tenant)
    const s = await makeSkill(t.tenant, d.id, 'Forklift')

    const reply = await t.api.post('/api/v1/job-roles', {
      name: 'Warehouse lead',
      description: 'Runs the floor',
      required_skills: [{ skill_id: s.id, required_level: 'proficient' }],
    })

    expect(reply.status).toBe(201)
    expect(reply.body.data).toMatchObject({
      name: 'Warehouse lead',
      description: 'Runs the floor',
      key: null,
      is_active: true,
      holder_count: 0,
      required_skills: [{ skill_id: s.id, skill_name: 'Forklift', required_level: 'proficient' }],
    })
    expect(typeof reply.body.data.required_skills[0].reviewed_at).toBe('string')
    const read = await t.api.get(`/api/v1/job-roles/${reply.body.data.id}`)
    expect(read.body.data).toEqual(reply.body.data)
  })

  it('answers 409 for a name another role has, ignoring case', async () => {
    const t = await newTenant()
    await makeRole(t, { name: 'Picker' })
    expectError(await t.api.post('/api/v1/job-roles', { name: 'PICKER' }), 409)
  })

  it('refuses a name over 150 characters and a description over 1,000, naming the field', async () => {
    const t = await newTenant()
    const long = await t.api.post('/api/v1/job-roles', { name: 'x'.repeat(151) })
    expectError(long, 400)
    expect(long.body.error.message).toContain('name')
    expect((await t.api.post('/api/v1/job-roles', { name: 'x'.repeat(150) })).status).toBe(201)
    const desc = await t.api.post('/api/v1/job-roles', { name: 'D', description: 'y'.repeat(1001) })
    expectError(desc, 400)
    expect(desc.body.error.message).toContain('description')
  })

  it("refuses an unknown or inactive skill with 'Unknown or inactive skill' and writes nothing", async () => {
    const t = await newTenant()
    const d = await makeDomain(t.tenant)
    const off = await makeSkill(t.tenant, d.id, 'Old', { active: false })
    for (const skillId of [randomUUID(), off.id]) {
      const reply = await t.api.post('/api/v1/job-roles', {
        name: 'Never',
        required_skills: [{ skill_id: skillId, required_level: 'awareness' }],
      })
      expectError(reply, 400)
      expect(reply.body.error.message).toContain('Unknown or inactive skill')
    }
    expect((await t.api.get('/api/v1/job-roles?include_inactive=true')).body.meta.total).toBe(0)
  })

  it('refuses a skill listed twice, more than 100 skills, and an unknown level', async () => {
    const t = await newTenant()
    const d = await makeDomain(t.tenant)
    const s = await makeSkill(t.tenant, d.id, 'A')
    const twice = [
      { skill_id: s.id, required_level: 'awareness' },
      { skill_id: s.id, required_level: 'expert' },
    ]
    expectError(await t.api.post('/api/v1/job-roles', { name: 'A', required_skills: twice }), 400)
    const many = Array.from({ length: 101 }, () => ({ skill_id: randomUUID(), required_level: 'awareness' }))
    const tooMany = await t.api.post('/api/v1/job-roles', { name: 'B', required_skills: many })
    expectError(tooMany, 400)
    expect(tooMany.body.error.message).toContain('100')
    const level = [{ skill_id: s.id, required_level: 'guru' }]
    expectError(await t.api.post('/api/v1/job-roles', { name: 'C', required_skills: level }), 400)
  })
})

describe('Route: PATCH /api/v1/job-roles/{id}', () => {
  it('replaces the requirements, [] clears them, and a deactivated skill’s requirement stays hidden and kept', async () => {
    const t = await newTenant()
    const d = await makeDomain(t.tenant)
    const a = await makeSkill(t.tenant, d.id, 'A')
    const b = await makeSkill(t.tenant, d.id, 'B')
    const c = await makeSkill(t.tenant, d.id, 'C')
    const role = await makeRole(t, {
      required_skills: [
        { skill_id: a.id, required_level: 'awareness' },
        { skill_id: c.id, required_level: 'expert' },
      ],
    })

    const replaced = await t.api.patch(`/api/v1/job-roles/${role.id}`, {
      required_skills: [{ skill_id: b.id, required_level: 'developing' }],
    })
    expect(replaced.status).toBe(200)
    expect(replaced.body.data.required_skills.map((r: { skill_id: string }) => r.skill_id)).toEqual([b.id])

    await t.api.patch(`/api/v1/job-roles/${role.id}`, {
      required_skills: [
        { skill_id: b.id, required_level: 'developing' },
        { skill_id: c.id, required_level: 'expert' },
      ],
    })
    await updateSkill(t.tenant, c.id, { isActive: false })
    const hidden = await t.api.get(`/api/v1/job-roles/${role.id}`)
    expect(hidden.body.data.required_skills.map((r: { skill_id: string }) => r.skill_id)).toEqual([b.id])

    const cleared = await t.api.patch(`/api/v1/job-roles/${role.id}`, { required_skills: [] })
    expect(cleared.body.data.required_skills).toEqual([])
    await updateSkill(t.tenant, c.id, { isActive: true })
    const back = await t.api.get(`/api/v1/job-roles/${role.id}`)
    expect(back.body.data.required_skills).toMatchObject([{ skill_id: c.id, required_level: 'expert' }])
  })

  it('answers 409 on a rename to another role’s name, and renames to its own name in another case', async () => {
    const t = await newTenant()
    await makeRole(t, { name: 'Driver' })
    const role = await makeRole(t, { name: 'Loader' })
    expectError(await t.api.patch(`/api/v1/job-roles/${role.id}`, { name: 'driver' }), 409)
    const recased = await t.api.patch(`/api/v1/job-roles/${role.id}`, { name: 'LOADER' })
    expect(recased.status).toBe(200)
    expect(recased.body.data.name).toBe('LOADER')
    // The old name is free again after a real rename.
    await t.api.patch(`/api/v1/job-roles/${role.id}`, { name: 'Packer' })
    expect((await t.api.post('/api/v1/job-roles', { name: 'loader' })).status).toBe(201)
  })

  it('deactivates (there is no delete) and answers 404 for an unknown role', async () => {
    const t = await newTenant()
    const role = await makeRole(t)
    const off = await t.api.patch(`/api/v1/job-roles/${role.id}`, { is_active: false })
    expect(off.body.data.is_active).toBe(false)
    expect((await t.api.delete(`/api/v1/job-roles/${role.id}`)).status).toBe(404)
    expectError(await t.api.patch(`/api/v1/job-roles/${randomUUID()}`, { is_active: false }), 404)
    expectError(await t.api.get(`/api/v1/job-roles/${randomUUID()}`), 404)
    expectError(await t.api.get('/api/v1/job-roles/not-a-uuid'), 404)
  })
})

describe('Route: GET /api/v1/job-roles', () => {
  it('lists active roles ordered by name, searches names, and includes inactive ones on request', async () => {
    const t = await newTenant()
    await makeRole(t, { name: 'charlie' })
    await makeRole(t, { name: 'Alpha' })
    const bravo = await makeRole(t, { name: 'Bravo' })
    await t.api.patch(`/api/v1/job-roles/${bravo.id}`, { is_active: false })

    const names = (r: { body: { data: { name: string }[] } }) => r.body.data.map((x) => x.name)
    expect(names(await t.api.get('/api/v1/job-roles'))).toEqual(['Alpha', 'charlie'])
    expect(names(await t.api.get('/api/v1/job-roles?include_inactive=true'))).toEqual([
      'Alpha',
      'Bravo',
      'charlie',
    ])
    expect(names(await t.api.get('/api/v1/job-roles?search=HAR'))).toEqual(['charlie'])
    const paged = await t.api.get('/api/v1/job-roles?include_inactive=true&per_page=1&page=2')
    expect(names(paged)).toEqual(['Bravo'])
    expect(paged.body.meta).toEqual({ page: 2, per_page: 1, total: 3 })
    expectError(await t.api.get('/api/v1/job-roles?include_inactive=yes'), 400)
  })
})

describe('Holder count', () => {
  it('counts a person once whatever the number of sources, and drops when the last source goes', async () => {
    const t = await newTenant()
    const role = await makeRole(t)
    const user = await userId(t)
    const count = async () => (await t.api.get(`/api/v1/job-roles/${role.id}`)).body.data.holder_count

    await assignRole(t.tenant, user, role.id as string, 'manual')
    await assignRole(t.tenant, user, role.id as string, 'profile')
    await put(t, `/api/v1/users/${user}/job-roles`, { job_role_ids: [role.id] })
    expect(await count()).toBe(1)
    await unassignRole(t.tenant, user, role.id as string, 'manual')
    await unassignRole(t.tenant, user, role.id as string, 'profile')
    expect(await count()).toBe(1)
    await put(t, `/api/v1/users/${user}/job-roles`, { job_role_ids: [] })
    expect(await count()).toBe(0)
  })

  it('stays exact when many sources race', async () => {
    const t = await newTenant()
    const role = await makeRole(t)
    const users = await Promise.all([userId(t), userId(t), userId(t)])
    await Promise.all(
      users.flatMap((u) =>
        (['manual', 'profile', 'import'] as const).map((s) => assignRole(t.tenant, u, role.id as string, s)),
      ),
    )
    expect((await t.api.get(`/api/v1/job-roles/${role.id}`)).body.data.holder_count).toBe(3)
  })
})

describe('Holder count and erasure', () => {
  it('stops counting an erased person, whatever their sources, and refuses them a role afterwards', async () => {
    const t = await newTenant()
    const role = await makeRole(t)
    const other = await makeRole(t)
    const [erased, kept] = await Promise.all([userId(t), userId(t)])
    await assignRole(t.tenant, erased, role.id as string, 'manual')
    await assignRole(t.tenant, erased, role.id as string, 'profile')
    await assignRole(t.tenant, erased, other.id as string, 'import')
    await assignRole(t.tenant, kept, role.id as string, 'import')
    const count = async (id: unknown) =>
      (await t.api.get(`/api/v1/job-roles/${id as string}`)).body.data.holder_count as number
    expect([await count(role.id), await count(other.id)]).toEqual([2, 1])

    const out = await lms('user', 'erase', '--tenant', t.slug, '--id', erased)
    expect(out.code).toBe(0)

    expect([await count(role.id), await count(other.id)]).toEqual([1, 0])
    // Erasing again changes nothing.
    expect((await lms('user', 'erase', '--tenant', t.slug, '--id', erased)).code).toBe(0)
    expect([await count(role.id), await count(other.id)]).toEqual([1, 0])
    expectError(await put(t, `/api/v1/users/${erased}/job-roles`, { job_role_ids: [role.id] }), 422)
    const assign = await lms(
      'job-role',
      'assign',
      '--tenant',
      t.slug,
      '--user',
      erased,
      '--role',
      role.id as string,
      '--source',
      'manual',
    )
    expect(assign.code).not.toBe(0)
    expect(await count(role.id)).toBe(1)
  })
})

describe('Route: PUT /api/v1/users/{id}/job-roles', () => {
  it('replaces only imported roles, reports added and removed, and lists every role with its sources', async () => {
    const t = await newTenant()
    const user = await userId(t)
    const manual = await makeRole(t, { name: 'M' })
    const profile = await makeRole(t, { name: 'P' })
    const one = await makeRole(t, { name: 'I1' })
    const two = await makeRole(t, { name: 'I2' })
    await assignRole(t.tenant, user, manual.id as string, 'manual')
    await assignRole(t.tenant, user, profile.id as string, 'profile')

    const first = await put(t, `/api/v1/users/${user}/job-roles`, { job_role_ids: [one.id, manual.id] })
    expect(first.status).toBe(200)
    expect(first.body.data).toMatchObject({ user_id: user, removed: [] })
    expect([...first.body.data.added].sort()).toEqual([one.id, manual.id].sort())

    const second = await put(t, `/api/v1/users/${user}/job-roles`, { job_role_ids: [two.id] })
    expect([...second.body.data.removed].sort()).toEqual([one.id, manual.id].sort())
    expect(second.body.data.added).toEqual([two.id])
    expect(second.body.data.job_roles).toEqual([
      { job_role_id: two.id, name: 'I2', is_active: true, sources: ['import'] },
      { job_role_id: manual.id, name: 'M', is_active: true, sources: ['manual'] },
      { job_role_id: profile.id, name: 'P', is_active: true, sources: ['profile'] },
    ])
  })

  it('fires job_role.assigned for each newly held role only (not for a role held already, nor for CSV or profile)', async () => {
    const t = await newTenant()
    const user = await userId(t)
    const held = await makeRole(t)
    const fresh = await makeRole(t)
    const viaProfile = await makeRole(t)
    await assignRole(t.tenant, user, held.id as string, 'manual')
    await assignRole(t.tenant, user, viaProfile.id as string, 'profile')
    const csv = await makeRole(t)
    await assignRole(t.tenant, user, csv.id as string, 'import')

    await put(t, `/api/v1/users/${user}/job-roles`, { job_role_ids: [held.id, fresh.id, csv.id] })

    const events = (await untilAllRelayed(t.tenant)).filter((e) => e.event === 'job_role.assigned')
    expect(events.map((e) => [e.data.jobRoleId, e.data.source]).sort()).toEqual(
      [
        [held.id, 'manual'],
        [fresh.id, 'import'],
      ].sort(),
    )
    expect(events.find((e) => e.data.jobRoleId === fresh.id)?.data).toMatchObject({ userId: user })
    expect(typeof events[0]?.data.assignedAt).toBe('string')
  })

  it('refuses more than 50 ids, an unknown or inactive role, and an unknown user; nothing changes', async () => {
    const t = await newTenant()
    const user = await userId(t)
    const role = await makeRole(t)
    const off = await makeRole(t)
    await t.api.patch(`/api/v1/job-roles/${off.id}`, { is_active: false })
    const ids = Array.from({ length: 51 }, () => randomUUID())
    expectError(await put(t, `/api/v1/users/${user}/job-roles`, { job_role_ids: ids }), 400)
    const inactive = await put(t, `/api/v1/users/${user}/job-roles`, { job_role_ids: [role.id, off.id] })
    expectError(inactive, 400)
    expect(inactive.body.error.message).toContain('job_role_ids[1]')
    expectError(await put(t, `/api/v1/users/${user}/job-roles`, { job_role_ids: [randomUUID()] }), 400)
    expectError(await put(t, `/api/v1/users/${randomUUID()}/job-roles`, { job_role_ids: [role.id] }), 404)
    expect((await t.api.get(`/api/v1/job-roles/${role.id}`)).body.data.holder_count).toBe(0)
  })

  it('needs the write scope', async () => {
    const t = await newTenant()
    const user = await userId(t)
    const readOnly = await t.key(['read'])
    expectError(await put(t, `/api/v1/users/${user}/job-roles`, { job_role_ids: [] }, readOnly), 403)
    expectError(await t.api.withKey(readOnly).post('/api/v1/job-roles', { name: 'X' }), 403)
    expect((await t.api.withKey(readOnly).get('/api/v1/job-roles')).status).toBe(200)
  })
})

describe('Plans', () => {
  it('answers 403 entitlement_blocked to a Starter tenant: its skills management is not API access', async () => {
    const t = await newTenant('starter')
    const reply = await t.api.get('/api/v1/job-roles')
    expectError(reply, 403)
    expect(reply.body.error.entitlement_blocked).toEqual({
      code: 'ENTITLEMENT_BLOCKED',
      flag_or_limit: 'api_access',
      current_tier: 'starter',
      required_tier: 'growth',
    })
  })
})

describe('CLI: job roles', () => {
  it('refuses skills management on a plan without it (Free), on every channel', async () => {
    const t = await newTenant('free')
    const refused = await lms('job-role', 'create', '--tenant', t.slug, '--name', 'Nope')
    expect(refused.code).not.toBe(0)
    expect(refused.json.error).toMatchObject({
      code: 403,
      entitlement_blocked: {
        flag_or_limit: 'skills_management',
        current_tier: 'free',
        required_tier: 'starter',
      },
    })
    const starter = await newTenant('starter')
    const allowed = await lms('job-role', 'create', '--tenant', starter.slug, '--name', 'Yes')
    expect(allowed.code).toBe(0)
  })

  it('creates a role managed by imported content and assigns it by source', async () => {
    const t = await newTenant()
    const user = await userId(t)
    const created = await lms(
      'job-role',
      'create',
      '--tenant',
      t.slug,
      '--name',
      'Imported',
      '--key',
      'imp-1',
    )
    expect(created.code).toBe(0)
    expect(created.json).toMatchObject({ name: 'Imported', key: 'imp-1', holder_count: 0 })
    const assigned = await lms(
      'job-role',
      'assign',
      '--tenant',
      t.slug,
      '--user',
      user,
      '--role',
      created.json.id,
      '--source',
      'profile',
    )
    expect(assigned.json).toEqual({
      user_id: user,
      job_roles: [{ job_role_id: created.json.id, name: 'Imported', is_active: true, sources: ['profile'] }],
    })
    const gone = await lms(
      'job-role',
      'unassign',
      '--tenant',
      t.slug,
      '--user',
      user,
      '--role',
      created.json.id,
      '--source',
      'profile',
    )
    expect(gone.json).toEqual({ user_id: user, job_roles: [] })
  })
})
