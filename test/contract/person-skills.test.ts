import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { assignRole, createJobRole } from '../../shared/services/skills/job-roles-service.ts'
import { claimLevel, updateSkill } from '../../shared/services/skills/skills-service.ts'
import { lms } from '../helpers/cli.ts'
import { untilAllRelayed } from '../helpers/outbox.ts'
import { hold, makeDomain, makeSkill } from '../helpers/skills.ts'
import { userId } from '../helpers/learning.ts'
import { newTenant } from '../helpers/tenants.ts'

const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString()

describe('Route: GET /api/v1/users/{id}/skills', () => {
  it('compares held levels with what the person’s roles require, most urgent first, with a summary', async () => {
    const t = await newTenant()
    const user = await userId(t)
    const d = await makeDomain(t.tenant, 'Safety', 'Sécurité')
    const gap2 = await makeSkill(t.tenant, d.id, 'Gap two')
    const gap1 = await makeSkill(t.tenant, d.id, 'Gap one')
    const none = await makeSkill(t.tenant, d.id, 'Unassessed')
    const meets = await makeSkill(t.tenant, d.id, 'Meets')
    const exceeds = await makeSkill(t.tenant, d.id, 'Exceeds')
    const extra = await makeSkill(t.tenant, d.id, 'Extra')
    const role = await createJobRole(t.tenant, {
      name: 'Operator',
      required_skills: [
        { skill_id: exceeds.id, required_level: 'awareness' },
        { skill_id: meets.id, required_level: 'developing' },
        { skill_id: none.id, required_level: 'developing' },
        { skill_id: gap1.id, required_level: 'proficient' },
        { skill_id: gap2.id, required_level: 'expert' },
      ],
    })
    await assignRole(t.tenant, user, role.id, 'manual')
    await hold(t.tenant, user, gap2.id, 'developing')
    await hold(t.tenant, user, gap1.id, 'developing')
    await hold(t.tenant, user, meets.id, 'developing')
    await hold(t.tenant, user, exceeds.id, 'expert')
    await hold(t.tenant, user, extra.id, 'awareness')

    const reply = await t.api.get(`/api/v1/users/${user}/skills`)

    expect(reply.status).toBe(200)
    const data = reply.body.data
    expect(data.user_id).toBe(user)
    expect(data.requirements).toBe('job_roles')
    expect(data.job_roles).toEqual([{ id: role.id, name: 'Operator' }])
    expect(data.skills.map((s: { name: string; status: string }) => [s.name, s.status])).toEqual([
      ['Gap two', 'below_2'],
      ['Gap one', 'below_1'],
      ['Unassessed', 'not_assessed'],
      ['Meets', 'meets'],
      ['Exceeds', 'exceeds'],
      ['Extra', 'not_required'],
    ])
    expect(data.summary).toEqual({
      required_skills: 5,
      satisfied: 2,
      to_develop: 3,
      counts: { below_2: 1, below_1: 1, not_assessed: 1, meets: 1, exceeds: 1, not_required: 1 },
    })
    expect(data.skills[0]).toEqual({
      skill_id: gap2.id,
      name: 'Gap two',
      domain: { id: d.id, name: 'Safety' },
      status: 'below_2',
      required_level: 'expert',
      required_by: { kind: 'job_role', id: role.id, name: 'Operator' },
      attained_level: 'developing',
      source: 'assessment',
      earned_at: expect.any(String),
      valid_until: null,
      expiring: false,
      pending_claim_level: null,
    })
    expect(data.skills[5]).toMatchObject({ required_level: null, required_by: null })
  })

  it('answers requirements none without roles, and names skills in French with locale fr-CA', async () => {
    const t = await newTenant()
    const user = await userId(t)
    const d = await makeDomain(t.tenant, 'Safety', 'Sécurité')
    const s = await makeSkill(t.tenant, d.id, 'First aid', { nameFr: 'Premiers soins' })
    await hold(t.tenant, user, s.id, 'awareness')

    const en = await t.api.get(`/api/v1/users/${user}/skills`)
    expect(en.body.data).toMatchObject({ requirements: 'none', job_roles: [] })
    expect(en.body.data.skills[0]).toMatchObject({ name: 'First aid', domain: { name: 'Safety' } })
    const fr = await t.api.get(`/api/v1/users/${user}/skills?locale=fr-CA`)
    expect(fr.body.data.skills[0]).toMatchObject({ name: 'Premiers soins', domain: { name: 'Sécurité' } })
    expect((await t.api.get(`/api/v1/users/${user}/skills?locale=de`)).status).toBe(400)
  })

  it('flags a level that expires within 30 days, treats an expired one as not held, and shows a pending claim', async () => {
    const t = await newTenant()
    const user = await userId(t)
    const d = await makeDomain(t.tenant)
    const soon = await makeSkill(t.tenant, d.id, 'Soon')
    const past = await makeSkill(t.tenant, d.id, 'Past')
    const claimed = await makeSkill(t.tenant, d.id, 'Claimed')
    const role = await createJobRole(t.tenant, {
      name: 'R',
      required_skills: [
        { skill_id: soon.id, required_level: 'awareness' },
        { skill_id: past.id, required_level: 'awareness' },
      ],
    })
    await assignRole(t.tenant, user, role.id, 'import')
    await hold(t.tenant, user, soon.id, 'awareness', 'validated', inDays(10))
    await hold(t.tenant, user, past.id, 'awareness', 'validated', inDays(-1))
    await hold(t.tenant, user, claimed.id, 'awareness')
    await claimLevel(t.tenant, user, claimed.id, 'expert')

    const skills = (await t.api.get(`/api/v1/users/${user}/skills`)).body.data.skills
    const byName = (n: string) => skills.find((s: { name: string }) => s.name === n)
    expect(byName('Soon')).toMatchObject({ status: 'meets', expiring: true })
    expect(byName('Past')).toMatchObject({
      status: 'not_assessed',
      attained_level: 'awareness',
      expiring: false,
    })
    expect(byName('Claimed')).toMatchObject({ status: 'not_required', pending_claim_level: 'expert' })
  })

  it('hides a deactivated skill and the requirement on it', async () => {
    const t = await newTenant()
    const user = await userId(t)
    const d = await makeDomain(t.tenant)
    const s = await makeSkill(t.tenant, d.id, 'Going')
    const role = await createJobRole(t.tenant, {
      name: 'R',
      required_skills: [{ skill_id: s.id, required_level: 'awareness' }],
    })
    await assignRole(t.tenant, user, role.id, 'manual')
    await updateSkill(t.tenant, s.id, { isActive: false })
    const data = (await t.api.get(`/api/v1/users/${user}/skills`)).body.data
    expect(data).toMatchObject({ requirements: 'none', skills: [] })
  })

  it('answers 404 for an unknown user', async () => {
    const t = await newTenant()
    expect((await t.api.get(`/api/v1/users/${randomUUID()}/skills`)).status).toBe(404)
    const other = await newTenant()
    const stranger = await userId(other)
    expect((await t.api.get(`/api/v1/users/${stranger}/skills`)).status).toBe(404)
  })
})

describe('Event: skill.attained', () => {
  it('fires when a held level rises, not when it is set by hand, stays or drops', async () => {
    const t = await newTenant()
    const user = await userId(t)
    const d = await makeDomain(t.tenant)
    const s = await makeSkill(t.tenant, d.id, 'Welding')
    const set = (level: string, source: string, extra: string[] = []) =>
      lms(
        'user-skill',
        'set',
        '--tenant',
        t.slug,
        '--user',
        user,
        '--skill',
        s.id,
        '--level',
        level,
        '--source',
        source,
        ...extra,
      )

    const first = await set('awareness', 'assessment', ['--valid-until', '2030-01-01T00:00:00Z'])
    expect(first.code).toBe(0)
    expect(first.json).toMatchObject({
      level: 'awareness',
      source: 'assessment',
      valid_until: '2030-01-01T00:00:00.000Z',
    })
    await set('expert', 'manual')
    await set('developing', 'observed')
    await set('developing', 'observed')
    await set('proficient', 'validated')

    const attained = (await untilAllRelayed(t.tenant)).filter((e) => e.event === 'skill.attained')
    expect(attained.map((e) => [e.data.previousLevel, e.data.level, e.data.source])).toEqual([
      [null, 'awareness', 'assessment'],
      ['developing', 'proficient', 'validated'],
    ])
    expect(attained[0]?.data).toMatchObject({
      userId: user,
      skillId: s.id,
      validUntil: '2030-01-01T00:00:00.000Z',
      earnedAt: expect.any(String),
    })
    expect(attained[1]?.data.validUntil).toBeNull()
  })

  it('records a claim without changing the held level (CLI)', async () => {
    const t = await newTenant()
    const user = await userId(t)
    const d = await makeDomain(t.tenant)
    const s = await makeSkill(t.tenant, d.id, 'Claims')
    const claim = await lms(
      'user-skill',
      'claim',
      '--tenant',
      t.slug,
      '--user',
      user,
      '--skill',
      s.id,
      '--level',
      'proficient',
    )
    expect(claim.json).toMatchObject({ level: null, pending_claim_level: 'proficient' })
  })
})
