/**
 * The matrix's status filter reads each person's skills summary (docs/decisions/0032): these tests
 * change what a status depends on, through each channel that can change it, and read the filter
 * back over HTTP right after.
 */
import { describe, expect, it } from 'vitest'
import { updateTenant } from '../../shared/services/tenants/tenants-service.ts'
import { lms } from '../helpers/cli.ts'
import { course, user } from '../helpers/learning.ts'
import { makeDomain, makeSkill, put } from '../helpers/skills.ts'
import { newTenant, type TestTenant } from '../helpers/tenants.ts'

interface Row {
  readonly user: { readonly last_name: string }
  readonly cells: { readonly skill_id: string; readonly status: string | null }[]
}

/**
 * A Growth tenant with skills planning on, one skill that the role `Rigger` requires at
 * `developing`, and a person for each last name given.
 */
async function setting(...lastNames: string[]) {
  const t = await newTenant('growth')
  await updateTenant(t.slug, { skillsPlanning: true })
  const domain = await makeDomain(t.tenant)
  const skill = await makeSkill(t.tenant, domain.id, 'Rigging')
  const created = await t.api.post('/api/v1/job-roles', {
    name: 'Rigger',
    required_skills: [{ skill_id: skill.id, required_level: 'developing' }],
  })
  expect(created.status).toBe(201)
  const role = created.body.data.id as string
  const people: Record<string, string> = {}
  for (const last of lastNames) people[last] = (await user(t, { last_name: last })).id
  return { t, skill: skill.id, role, people }
}

/** The last names the status filter keeps, in order, and its total. */
async function kept(t: TestTenant, query: string): Promise<string[]> {
  const reply = await t.api.get(`/api/v1/skills/matrix?${query}`)
  expect(reply.status).toBe(200)
  const rows = reply.body.data as Row[]
  expect(reply.body.meta.total).toBe(rows.length)
  return rows.map((r) => r.user.last_name)
}

async function cli(...args: string[]) {
  const out = await lms(...args)
  expect(out.code, JSON.stringify(out.json)).toBe(0)
  return out.json
}

const setLevel = (t: TestTenant, userId: string, skillId: string, level: string, ...more: string[]) =>
  cli(
    'user-skill',
    'set',
    '--tenant',
    t.slug,
    '--user',
    userId,
    '--skill',
    skillId,
    '--level',
    level,
    ...more,
  )

describe('Route: GET /api/v1/skills/matrix?status= (kept right by every change)', () => {
  it('follows a held level as it is recorded, raised and lets lapse', async () => {
    const { t, skill, role, people } = await setting('Archer')
    const ann = people.Archer ?? ''
    await put(t, `/api/v1/users/${ann}/job-roles`, { job_role_ids: [role] })
    expect(await kept(t, 'status=not_assessed')).toEqual(['Archer'])

    await setLevel(t, ann, skill, 'awareness', '--source', 'assessment')
    expect(await kept(t, 'status=not_assessed')).toEqual([])
    expect(await kept(t, 'status=below_1')).toEqual(['Archer'])

    await setLevel(t, ann, skill, 'expert', '--source', 'validated')
    expect(await kept(t, 'status=below_1')).toEqual([])
    expect(await kept(t, 'status=exceeds')).toEqual(['Archer'])

    await setLevel(
      t,
      ann,
      skill,
      'proficient',
      '--source',
      'validated',
      '--valid-until',
      '2020-01-01T00:00:00.000Z',
    )
    expect(await kept(t, 'status=exceeds')).toEqual([])
    const lapsed = await t.api.get('/api/v1/skills/matrix?status=not_assessed')
    expect(lapsed.body.data[0].cells[0]).toMatchObject({
      skill_id: skill,
      status: 'not_assessed',
      attained_level: 'proficient',
      valid_until: '2020-01-01T00:00:00.000Z',
    })
  })

  it('shows a pending claim in a kept row, and the claim alone changes no status', async () => {
    const { t, skill, role, people } = await setting('Baker')
    const ben = people.Baker ?? ''
    await put(t, `/api/v1/users/${ben}/job-roles`, { job_role_ids: [role] })
    await cli('user-skill', 'claim', '--tenant', t.slug, '--user', ben, '--skill', skill, '--level', 'expert')

    const reply = await t.api.get('/api/v1/skills/matrix?status=not_assessed')
    expect(reply.body.data.map((r: Row) => r.user.last_name)).toEqual(['Baker'])
    expect(reply.body.data[0].cells[0]).toMatchObject({
      status: 'not_assessed',
      attained_level: null,
      pending_claim_level: 'expert',
    })
  })

  it('follows a level raised by completing a course that grants the skill', async () => {
    const { t, skill, role, people } = await setting('Carter')
    const cid = people.Carter ?? ''
    await put(t, `/api/v1/users/${cid}/job-roles`, { job_role_ids: [role] })
    const k = await course(t, {
      modules: [{ title: 'Watch', module_type: 'video' }],
      settings: { grantsSkill: { skillId: skill, level: 'developing' } },
    })
    const e = await t.api.post('/api/v1/enrollments', { user_id: cid, course_id: k.id })
    expect(e.status).toBe(201)
    expect(await kept(t, 'status=not_assessed')).toEqual(['Carter'])

    await cli(
      'learner',
      'complete-module',
      '--tenant',
      t.slug,
      '--enrollment',
      e.body.data.id as string,
      '--module',
      k.modules[0]?.id ?? '',
    )

    expect(await kept(t, 'status=not_assessed')).toEqual([])
    expect(await kept(t, 'status=meets')).toEqual(['Carter'])
  })

  it('follows roles assigned and unassigned, by PUT and by the operator, whatever the sources', async () => {
    const { t, skill, role, people } = await setting('Dunn', 'Evans')
    const dee = people.Dunn ?? ''
    const eve = people.Evans ?? ''
    await setLevel(t, dee, skill, 'awareness', '--source', 'assessment')
    await setLevel(t, eve, skill, 'awareness', '--source', 'assessment')
    expect(await kept(t, 'status=not_required')).toEqual(['Dunn', 'Evans'])
    expect(await kept(t, 'status=below_1')).toEqual([])

    expect((await put(t, `/api/v1/users/${dee}/job-roles`, { job_role_ids: [role] })).status).toBe(200)
    await cli('job-role', 'assign', '--tenant', t.slug, '--user', eve, '--role', role, '--source', 'manual')
    await cli('job-role', 'assign', '--tenant', t.slug, '--user', eve, '--role', role, '--source', 'profile')
    expect(await kept(t, 'status=below_1')).toEqual(['Dunn', 'Evans'])
    expect(await kept(t, `status=below_1&job_role_id=${role}`)).toEqual(['Dunn', 'Evans'])

    expect((await put(t, `/api/v1/users/${dee}/job-roles`, { job_role_ids: [] })).status).toBe(200)
    await cli('job-role', 'unassign', '--tenant', t.slug, '--user', eve, '--role', role, '--source', 'manual')
    // Eve still holds the role through her profile.
    expect(await kept(t, 'status=below_1')).toEqual(['Evans'])
    expect(await kept(t, 'status=not_required')).toEqual(['Dunn'])

    await cli(
      'job-role',
      'unassign',
      '--tenant',
      t.slug,
      '--user',
      eve,
      '--role',
      role,
      '--source',
      'profile',
    )
    expect(await kept(t, 'status=below_1')).toEqual([])
    expect(await kept(t, `status=not_required&job_role_id=${role}`)).toEqual([])
    expect(await kept(t, 'status=not_required')).toEqual(['Dunn', 'Evans'])
  })

  it('follows a role’s requirements and activity, for every holder at once', async () => {
    const { t, skill, role, people } = await setting('Fox', 'Gray')
    for (const id of Object.values(people)) {
      await put(t, `/api/v1/users/${id}/job-roles`, { job_role_ids: [role] })
      await setLevel(t, id, skill, 'awareness', '--source', 'assessment')
    }
    expect(await kept(t, 'status=below_1')).toEqual(['Fox', 'Gray'])

    const lowered = await t.api.patch(`/api/v1/job-roles/${role}`, {
      required_skills: [{ skill_id: skill, required_level: 'awareness' }],
    })
    expect(lowered.status).toBe(200)
    expect(await kept(t, 'status=below_1')).toEqual([])
    expect(await kept(t, 'status=meets')).toEqual(['Fox', 'Gray'])

    await t.api.patch(`/api/v1/job-roles/${role}`, {
      required_skills: [{ skill_id: skill, required_level: 'expert' }],
    })
    expect(await kept(t, 'status=below_2')).toEqual(['Fox', 'Gray'])

    expect((await t.api.patch(`/api/v1/job-roles/${role}`, { is_active: false })).status).toBe(200)
    expect(await kept(t, 'status=below_2')).toEqual([])
    expect(await kept(t, 'status=not_required')).toEqual(['Fox', 'Gray'])

    await t.api.patch(`/api/v1/job-roles/${role}`, { is_active: true })
    await t.api.patch(`/api/v1/job-roles/${role}`, { required_skills: [] })
    expect(await kept(t, 'status=below_2')).toEqual([])
    expect(await kept(t, 'status=not_required')).toEqual(['Fox', 'Gray'])
  })

  it('follows a skill switched off and on', async () => {
    const { t, skill, role, people } = await setting('Hill')
    await put(t, `/api/v1/users/${people.Hill ?? ''}/job-roles`, { job_role_ids: [role] })
    expect(await kept(t, 'status=not_assessed')).toEqual(['Hill'])

    await cli('skill', 'update', '--tenant', t.slug, '--id', skill, '--active', 'off')
    expect(await kept(t, 'status=not_assessed')).toEqual([])

    await cli('skill', 'update', '--tenant', t.slug, '--id', skill, '--active', 'on')
    expect(await kept(t, 'status=not_assessed')).toEqual(['Hill'])
  })

  it('leaves out a person deactivated (back when reactivated) and a person erased', async () => {
    const { t, skill, role, people } = await setting('Ives', 'Jones')
    for (const id of Object.values(people)) {
      await put(t, `/api/v1/users/${id}/job-roles`, { job_role_ids: [role] })
      await setLevel(t, id, skill, 'awareness', '--source', 'assessment')
    }
    const ivy = people.Ives ?? ''
    const jo = people.Jones ?? ''

    expect((await t.api.delete(`/api/v1/users/${ivy}`)).status).toBe(204)
    expect(await kept(t, 'status=below_1')).toEqual(['Jones'])
    expect((await t.api.patch(`/api/v1/users/${ivy}`, { is_active: true })).status).toBe(200)
    expect(await kept(t, 'status=below_1')).toEqual(['Ives', 'Jones'])

    await cli('user', 'erase', '--tenant', t.slug, '--id', jo)
    expect(await kept(t, 'status=below_1')).toEqual(['Ives'])
    expect(await kept(t, `status=below_1&job_role_id=${role}`)).toEqual(['Ives'])
  })
})
