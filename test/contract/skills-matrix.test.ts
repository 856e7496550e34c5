import { describe, expect, it } from 'vitest'
import { addMembers, createGroup } from '../../shared/services/groups/groups-service.ts'
import { assignRole, createJobRole } from '../../shared/services/skills/job-roles-service.ts'
import { updateTenant } from '../../shared/services/tenants/tenants-service.ts'
import { lms } from '../helpers/cli.ts'
import { hold, makeDomain, makeSkill } from '../helpers/skills.ts'
import { userId } from '../helpers/learning.ts'
import { newTenant, type TestTenant } from '../helpers/tenants.ts'

/** A Growth tenant with skills planning switched on. */
async function planningTenant(): Promise<TestTenant> {
  const t = await newTenant('growth')
  await updateTenant(t.slug, { skillsPlanning: true })
  return t
}

const names = (reply: { body: { data: { user: { last_name: string } }[] } }) =>
  reply.body.data.map((r) => r.user.last_name)

describe('Route: GET /api/v1/skills/matrix (entitlement and switch)', () => {
  it('answers 403 SKILLS_PLANNING_OFF when the plan has skills planning but the organization switched it off', async () => {
    const t = await newTenant('growth')
    const reply = await t.api.get('/api/v1/skills/matrix')
    expect(reply.status).toBe(403)
    expect(reply.body.error.reason).toBe('SKILLS_PLANNING_OFF')
    await updateTenant(t.slug, { skillsPlanning: true })
    expect((await t.api.get('/api/v1/skills/matrix')).status).toBe(200)
  })

  it('answers 403 entitlement_blocked below Growth', async () => {
    const t = await newTenant('starter')
    await updateTenant(t.slug, { skillsPlanning: true })
    const reply = await t.api.get('/api/v1/skills/matrix')
    expect(reply.status).toBe(403)
    expect(reply.body.error.entitlement_blocked).toMatchObject({
      code: 'ENTITLEMENT_BLOCKED',
      required_tier: 'growth',
    })
  })
})

describe('Route: GET /api/v1/skills/matrix', () => {
  it('gives one row per person with cells in column order, and the columns in meta', async () => {
    const t = await planningTenant()
    const ada = await userId(t, { first_name: 'Ada', last_name: 'Alpha' })
    const bob = await userId(t, { first_name: 'Bob', last_name: 'Bravo' })
    const d = await makeDomain(t.tenant, 'Ops', 'Opé')
    const a = await makeSkill(t.tenant, d.id, 'Anchoring', { critical: true, nameFr: 'Ancrage' })
    const b = await makeSkill(t.tenant, d.id, 'Bracing')
    const role = await createJobRole(t.tenant, {
      name: 'Rigger',
      required_skills: [{ skill_id: a.id, required_level: 'proficient' }],
    })
    await assignRole(t.tenant, ada, role.id, 'manual')
    await hold(t.tenant, ada, a.id, 'awareness')
    await hold(
      t.tenant,
      bob,
      b.id,
      'expert',
      'validated',
      new Date(Date.now() + 5 * 86_400_000).toISOString(),
    )

    const reply = await t.api.get('/api/v1/skills/matrix')

    expect(reply.status).toBe(200)
    expect(reply.body.meta).toMatchObject({
      page: 1,
      per_page: 50,
      total: 2,
      columns: [
        { skill_id: a.id, name: 'Anchoring', domain: { id: d.id, name: 'Ops' }, is_critical: true },
        { skill_id: b.id, name: 'Bracing', domain: { id: d.id, name: 'Ops' }, is_critical: false },
      ],
      columns_truncated: false,
      available_columns: 2,
      has_requirements: true,
      population_truncated: false,
    })
    expect(reply.body.data[0]).toEqual({
      id: ada,
      user: { id: ada, first_name: 'Ada', last_name: 'Alpha' },
      job_roles: ['Rigger'],
      cells: [
        {
          skill_id: a.id,
          status: 'below_2',
          required_level: 'proficient',
          attained_level: 'awareness',
          valid_until: null,
          expiring: false,
          pending_claim_level: null,
        },
        {
          skill_id: b.id,
          status: null,
          required_level: null,
          attained_level: null,
          valid_until: null,
          expiring: false,
          pending_claim_level: null,
        },
      ],
    })
    expect(reply.body.data[1].cells[1]).toMatchObject({
      status: 'not_required',
      attained_level: 'expert',
      expiring: true,
    })
    const fr = await t.api.get('/api/v1/skills/matrix?locale=fr-CA')
    expect(fr.body.meta.columns[0]).toMatchObject({ name: 'Ancrage', domain: { name: 'Opé' } })
  })

  it('lists active people only, by last name ignoring case, with the total of active people, page by page', async () => {
    const t = await planningTenant()
    const zed = await userId(t, { first_name: 'Zoe', last_name: 'zed' })
    await userId(t, { first_name: 'Al', last_name: 'Young' })
    const gone = await userId(t, { first_name: 'Gus', last_name: 'Xavier' })
    await userId(t, { first_name: 'Ed', last_name: 'Ward' })
    expect((await t.api.delete(`/api/v1/users/${gone}`)).status).toBe(204)

    const first = await t.api.get('/api/v1/skills/matrix?per_page=2')
    expect(names(first)).toEqual(['Ward', 'Young'])
    expect(first.body.meta).toMatchObject({ page: 1, per_page: 2, total: 3 })
    const second = await t.api.get('/api/v1/skills/matrix?per_page=2&page=2')
    expect(names(second)).toEqual(['zed'])
    expect(second.body.data[0].id).toBe(zed)
    expect(second.body.meta.total).toBe(3)
  })

  it('filters people by group, role and name, accepting comma lists and repeated parameters', async () => {
    const t = await planningTenant()
    const ids = {
      a: await userId(t, { first_name: 'Ann', last_name: 'Archer' }),
      b: await userId(t, { first_name: 'Ben', last_name: 'Baker' }),
      c: await userId(t, { first_name: 'Cid', last_name: 'Carter' }),
      d: await userId(t, { first_name: 'Dee', last_name: 'Dunn' }),
    }
    const g1 = await createGroup(t.tenant, { name: 'G1' })
    const g2 = await createGroup(t.tenant, { name: 'G2' })
    await addMembers(t.tenant, g1.id, [ids.a])
    await addMembers(t.tenant, g2.id, [ids.b])
    const r1 = await createJobRole(t.tenant, { name: 'R1' })
    const r2 = await createJobRole(t.tenant, { name: 'R2' })
    await assignRole(t.tenant, ids.c, r1.id, 'profile')
    await assignRole(t.tenant, ids.d, r2.id, 'import')

    expect(names(await t.api.get(`/api/v1/skills/matrix?group_id=${g1.id},${g2.id}`))).toEqual([
      'Archer',
      'Baker',
    ])
    expect(names(await t.api.get(`/api/v1/skills/matrix?group_id=${g1.id}&group_id=${g2.id}`))).toEqual([
      'Archer',
      'Baker',
    ])
    expect(names(await t.api.get(`/api/v1/skills/matrix?job_role_id=${r1.id}&job_role_id=${r2.id}`))).toEqual(
      ['Carter', 'Dunn'],
    )
    expect(names(await t.api.get(`/api/v1/skills/matrix?job_role_id=${r2.id}`))).toEqual(['Dunn'])
    expect(names(await t.api.get('/api/v1/skills/matrix?search=ART'))).toEqual(['Carter'])
    expect(names(await t.api.get('/api/v1/skills/matrix?search=be'))).toEqual(['Baker'])
    const bad = await t.api.get('/api/v1/skills/matrix?group_id=nope')
    expect(bad.status).toBe(400)
    expect(bad.body.error.message).toContain('group_id')
  })

  it('takes the columns from the roles’ requirements without skill_id, and restricts them by domain', async () => {
    const t = await planningTenant()
    const d1 = await makeDomain(t.tenant, 'D1')
    const d2 = await makeDomain(t.tenant, 'D2')
    const x = await makeSkill(t.tenant, d1.id, 'X')
    const y = await makeSkill(t.tenant, d2.id, 'Y')
    await makeSkill(t.tenant, d2.id, 'Z')
    const role = await createJobRole(t.tenant, {
      name: 'R',
      required_skills: [
        { skill_id: x.id, required_level: 'awareness' },
        { skill_id: y.id, required_level: 'awareness' },
      ],
    })
    const cols = (r: { body: { meta: { columns: { name: string }[] } } }) =>
      r.body.meta.columns.map((c) => c.name)
    expect(cols(await t.api.get(`/api/v1/skills/matrix?job_role_id=${role.id}`))).toEqual(['X', 'Y'])
    expect(cols(await t.api.get(`/api/v1/skills/matrix?domain_id=${d2.id}`))).toEqual(['Y', 'Z'])
    expect(cols(await t.api.get(`/api/v1/skills/matrix?job_role_id=${role.id}&domain_id=${d2.id}`))).toEqual([
      'Y',
    ])
    expect(
      cols(await t.api.get(`/api/v1/skills/matrix?skill_id=${y.id},${x.id}&job_role_id=${role.id}`)),
    ).toEqual(['X', 'Y'])
    const none = await t.api.get(`/api/v1/skills/matrix?domain_id=${d2.id}&skill_id=${x.id}`)
    expect(none.body.meta).toMatchObject({ columns: [], available_columns: 0, has_requirements: false })
  })

  it('shows at most 40 columns, saying how many matched; more than 40 skill ids is a 400', async () => {
    const t = await planningTenant()
    const d = await makeDomain(t.tenant)
    const skills = await Promise.all(
      Array.from({ length: 42 }, (_, i) => makeSkill(t.tenant, d.id, `S${String(i).padStart(2, '0')}`)),
    )
    const reply = await t.api.get('/api/v1/skills/matrix')
    expect(reply.body.meta.columns).toHaveLength(40)
    expect(reply.body.meta).toMatchObject({ columns_truncated: true, available_columns: 42 })
    const ids41 = skills.slice(0, 41).map((s) => s.id)
    expect((await t.api.get(`/api/v1/skills/matrix?skill_id=${ids41.join(',')}`)).status).toBe(400)
    const ids40 = await t.api.get(`/api/v1/skills/matrix?skill_id=${ids41.slice(0, 40).join(',')}`)
    expect(ids40.body.meta).toMatchObject({ columns_truncated: false, available_columns: 40 })
  })

  it('keeps people with at least one cell in the statuses asked, and pages them', async () => {
    const t = await planningTenant()
    const low = await userId(t, { first_name: 'L', last_name: 'Low' })
    const fine = await userId(t, { first_name: 'F', last_name: 'Fine' })
    const unassessed = await userId(t, { first_name: 'U', last_name: 'Unassessed' })
    await userId(t, { first_name: 'N', last_name: 'Nobody' })
    const d = await makeDomain(t.tenant)
    const s = await makeSkill(t.tenant, d.id, 'S')
    const role = await createJobRole(t.tenant, {
      name: 'R',
      required_skills: [{ skill_id: s.id, required_level: 'developing' }],
    })
    for (const u of [low, fine, unassessed]) await assignRole(t.tenant, u, role.id, 'manual')
    await hold(t.tenant, low, s.id, 'awareness')
    await hold(t.tenant, fine, s.id, 'expert')

    expect(names(await t.api.get('/api/v1/skills/matrix?status=below_1'))).toEqual(['Low'])
    const two = await t.api.get('/api/v1/skills/matrix?status=below_1,not_assessed')
    expect(names(two)).toEqual(['Low', 'Unassessed'])
    expect(two.body.meta).toMatchObject({ total: 2, population_truncated: false })
    expect(names(await t.api.get('/api/v1/skills/matrix?status=exceeds&status=below_1'))).toEqual([
      'Fine',
      'Low',
    ])
    const paged = await t.api.get('/api/v1/skills/matrix?status=below_1,not_assessed&per_page=1&page=2')
    expect(names(paged)).toEqual(['Unassessed'])
    expect(paged.body.meta).toMatchObject({ page: 2, per_page: 1, total: 2 })
    expect((await t.api.get('/api/v1/skills/matrix?status=bad')).status).toBe(400)
  })

  it('writes every pull to the audit log with its filters and row count, never content', async () => {
    const t = await planningTenant()
    await userId(t, { first_name: 'Secret', last_name: 'Person' })
    const d = await makeDomain(t.tenant)
    await t.api.get(`/api/v1/skills/matrix?domain_id=${d.id}&search=Secret`)
    await t.api.get('/api/v1/skills/matrix?status=meets')

    const audit = await lms('audit', 'list', '--tenant', t.slug, '--action', 'skills.matrix.viewed')
    expect(audit.code).toBe(0)
    expect(audit.json.data).toHaveLength(2)
    const [latest, first] = audit.json.data
    expect(first).toMatchObject({
      id: expect.any(String),
      action: 'skills.matrix.viewed',
      at: expect.any(String),
      actor: expect.stringMatching(/^api:/),
      details: { filters: { domain_id: [d.id], search: true }, row_count: 1, total: 1 },
    })
    expect(latest.details).toMatchObject({ filters: { status: ['meets'] }, row_count: 0 })
    expect(JSON.stringify(audit.json)).not.toContain('Secret')
  })
})
