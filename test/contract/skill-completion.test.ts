import { describe, expect, it } from 'vitest'
import { recordActivity } from '../../shared/services/enrollments/learner-service.ts'
import { lms } from '../helpers/cli.ts'
import { course, user } from '../helpers/learning.ts'
import { untilAllRelayed } from '../helpers/outbox.ts'
import { hold, makeDomain, makeSkill } from '../helpers/skills.ts'
import { newTenant } from '../helpers/tenants.ts'

describe('A course that grants a skill', () => {
  it('raises the learner’s level on completion with source completion, and fires skill.attained once', async () => {
    const t = await newTenant()
    const d = await makeDomain(t.tenant)
    const s = await makeSkill(t.tenant, d.id, 'Lifting')
    const u = await user(t)
    const k = await course(t, { modules: [{ title: 'Watch', module_type: 'video' }] })
    const configured = await lms(
      'course',
      'configure',
      '--tenant',
      t.slug,
      '--course',
      k.id,
      '--grants-skill',
      s.id,
      '--grants-level',
      'proficient',
    )
    expect(configured.code).toBe(0)
    expect(configured.json.grants_skill).toEqual({ skill_id: s.id, level: 'proficient' })
    await hold(t.tenant, u.id, s.id, 'awareness')
    const e = await t.api.post('/api/v1/enrollments', { user_id: u.id, course_id: k.id })
    expect(e.status).toBe(201)

    await recordActivity(t.tenant, e.body.data.id, {
      moduleId: k.modules[0]?.id ?? '',
      kind: 'complete',
      score: null,
    })

    const skills = (await t.api.get(`/api/v1/users/${u.id}/skills`)).body.data.skills
    expect(skills[0]).toMatchObject({ skill_id: s.id, attained_level: 'proficient', source: 'completion' })
    const attained = (await untilAllRelayed(t.tenant)).filter((x) => x.event === 'skill.attained')
    expect(attained.map((x) => x.data)).toEqual([
      expect.objectContaining({ previousLevel: null, level: 'awareness', source: 'assessment' }),
      {
        userId: u.id,
        skillId: s.id,
        level: 'proficient',
        previousLevel: 'awareness',
        source: 'completion',
        earnedAt: expect.any(String),
        validUntil: null,
      },
    ])
  })

  it('leaves a higher held level alone and fires nothing', async () => {
    const t = await newTenant()
    const d = await makeDomain(t.tenant)
    const s = await makeSkill(t.tenant, d.id, 'Lifting')
    const u = await user(t)
    const k = await course(t, {
      modules: [{ title: 'Watch', module_type: 'video' }],
      settings: { grantsSkill: { skillId: s.id, level: 'developing' } },
    })
    await hold(t.tenant, u.id, s.id, 'expert', 'manual')
    const e = await t.api.post('/api/v1/enrollments', { user_id: u.id, course_id: k.id })
    await recordActivity(t.tenant, e.body.data.id, {
      moduleId: k.modules[0]?.id ?? '',
      kind: 'complete',
      score: null,
    })

    const events = await untilAllRelayed(t.tenant)
    expect(events.some((x) => x.event === 'enrollment.completed')).toBe(true)
    expect(events.filter((x) => x.event === 'skill.attained')).toEqual([])
    const skills = (await t.api.get(`/api/v1/users/${u.id}/skills`)).body.data.skills
    expect(skills[0]).toMatchObject({ attained_level: 'expert', source: 'manual' })
  })

  it('refuses a skill the tenant does not have', async () => {
    const t = await newTenant()
    const k = await course(t, { modules: [{ title: 'Watch', module_type: 'video' }] })
    const bad = await lms(
      'course',
      'configure',
      '--tenant',
      t.slug,
      '--course',
      k.id,
      '--grants-skill',
      '00000000-0000-4000-8000-000000000000',
      '--grants-level',
      'expert',
    )
    expect(bad.code).not.toBe(0)
    expect(JSON.stringify(bad.json)).toContain('grants_skill')
  })
})
