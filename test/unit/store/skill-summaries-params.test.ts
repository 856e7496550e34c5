import { describe, expect, it } from 'vitest'
import type { RoleHolding } from '../../../shared/domain/skills/job-role.ts'
import type { HeldSkill } from '../../../shared/domain/skills/skill.ts'
import { sameSummary, summaryOf } from '../../../shared/domain/skills/summary.ts'
import type { TenantContext } from '../../../shared/domain/tenants/tenant.ts'
import type { TransactItem } from '../../../shared/store/core/db.ts'
import { heldSkillSteps } from '../../../shared/store/skills/held-skill-items.ts'
import { holdingChangeSteps } from '../../../shared/store/skills/job-roles-store.ts'
import {
  replaceSummaryParams,
  summaryLevelsStep,
  summaryRoleStep,
  toSkillSummary,
} from '../../../shared/store/skills/skill-summaries.ts'
import { rendered } from '../../helpers/readable-expression.ts'

const tenant: TenantContext = { id: 'ten-1', plan: 'growth' }
const pk = 'T#ten-1'
const at = '2026-02-01T00:00:00.000Z'

const held = (skillId: string, over: Partial<HeldSkill> = {}): HeldSkill => ({
  userId: 'u1',
  skillId,
  level: 'developing',
  source: 'assessment',
  earnedAt: at,
  validUntil: null,
  pendingClaimLevel: null,
  updatedAt: at,
  ...over,
})

const update = (item: TransactItem) => {
  const u = item.Update
  if (!u) throw new Error('not an update')
  return {
    key: u.Key,
    update: rendered(u.UpdateExpression, u),
    condition: rendered(u.ConditionExpression, u),
  }
}

const summaryKey = { pk, sk: 'USKILLSUM#u1' }

describe('Params: the skills summary kept with each write', () => {
  it('sets each held skill of the person under its own attribute, with no condition of its own', () => {
    const step = summaryLevelsStep(tenant, 'u1', [
      held('s1'),
      held('s2', { level: null, pendingClaimLevel: 'expert', validUntil: '2027-01-01T00:00:00.000Z' }),
    ])
    expect(step.refusal).toBeUndefined()
    expect(update(step.item)).toEqual({
      key: summaryKey,
      update:
        'SET type = "skill_summary", user_id = "u1", held:s1 = {"level":"developing"}, ' +
        'held:s2 = {"valid_until":"2027-01-01T00:00:00.000Z","pending_claim_level":"expert"} ADD version 1',
      condition: undefined,
    })
  })

  it('adds a role the person starts holding and takes out one they stop holding', () => {
    expect(update(summaryRoleStep(tenant, 'u1', 'r1', true).item).update).toBe(
      'SET type = "skill_summary", user_id = "u1" ADD version 1, roles <<r1>>',
    )
    expect(update(summaryRoleStep(tenant, 'u1', 'r1', false).item).update).toBe(
      'SET type = "skill_summary", user_id = "u1" ADD version 1 DELETE roles <<r1>>',
    )
  })

  it('rides in the held skill’s transaction, once per person however many skills change', () => {
    const steps = heldSkillSteps(tenant, [
      { before: undefined, after: held('s1') },
      { before: held('s2', { level: 'awareness' }), after: held('s2') },
      { before: undefined, after: held('s3', { userId: 'u2' }) },
    ])
    const keys = steps.map((s) =>
      s.item.Put?.Item ? { pk: s.item.Put.Item.pk, sk: s.item.Put.Item.sk } : s.item.Update?.Key,
    )
    expect(keys).toEqual([
      { pk, sk: 'USKILL#u1#s1' },
      { pk, sk: 'USKILL#u1#s2' },
      { pk, sk: 'USKILL#u2#s3' },
      summaryKey,
      { pk, sk: 'USKILLSUM#u2' },
    ])
  })

  it('rides in a holding’s transaction only when the person starts or stops holding the role', () => {
    const holding: RoleHolding = { userId: 'u1', jobRoleId: 'r1', sources: ['manual'], version: 1 }
    const summarySteps = (before?: RoleHolding, after?: RoleHolding) =>
      holdingChangeSteps(tenant, { userId: 'u1', jobRoleId: 'r1', before, after, effects: {} })
        .filter((s) => s.item.Update?.Key?.sk === 'USKILLSUM#u1')
        .map((s) => update(s.item).update)
    expect(summarySteps(undefined, holding)).toEqual([
      'SET type = "skill_summary", user_id = "u1" ADD version 1, roles <<r1>>',
    ])
    expect(summarySteps(holding, { ...holding, sources: ['manual', 'profile'], version: 2 })).toEqual([])
    expect(summarySteps(holding, undefined)).toEqual([
      'SET type = "skill_summary", user_id = "u1" ADD version 1 DELETE roles <<r1>>',
    ])
  })
})

describe('Params: the backfill’s whole summary', () => {
  const summary = summaryOf('u1', [{ jobRoleId: 'r2' }, { jobRoleId: 'r1' }], [held('s1')])

  it('is written only if still absent, or still at the version read', () => {
    const fresh = replaceSummaryParams(tenant, summary, undefined)
    expect(fresh.Item).toEqual({
      ...summaryKey,
      type: 'skill_summary',
      user_id: 'u1',
      roles: new Set(['r1', 'r2']),
      'held:s1': { level: 'developing' },
      version: 1,
    })
    expect(rendered(fresh.ConditionExpression, fresh)).toBe('attribute_not_exists(pk)')
    const again = replaceSummaryParams(tenant, summary, 4)
    expect(again.Item.version).toBe(5)
    expect(rendered(again.ConditionExpression, again)).toBe('version = 4')
  })

  it('reads back as it was written, and a summary without roles leaves the set out', () => {
    const { Item } = replaceSummaryParams(tenant, summary, 2)
    expect(toSkillSummary(Item)).toEqual({
      summary: {
        userId: 'u1',
        roleIds: ['r1', 'r2'],
        held: [{ skillId: 's1', level: 'developing', validUntil: null, pendingClaimLevel: null }],
      },
      version: 3,
    })
    const bare = replaceSummaryParams(tenant, summaryOf('u1', [], []), undefined).Item
    expect('roles' in bare).toBe(false)
    expect(toSkillSummary(bare).summary).toEqual({ userId: 'u1', roleIds: [], held: [] })
  })

  it('is the same summary whatever the order of roles and skills', () => {
    const other = summaryOf('u1', [{ jobRoleId: 'r1' }, { jobRoleId: 'r2' }], [held('s1')])
    expect(sameSummary(summary, other)).toBe(true)
    expect(sameSummary(summary, summaryOf('u1', [{ jobRoleId: 'r1' }], [held('s1')]))).toBe(false)
    expect(
      sameSummary(
        summary,
        summaryOf('u1', [{ jobRoleId: 'r1' }, { jobRoleId: 'r2' }], [held('s1', { level: 'expert' })]),
      ),
    ).toBe(false)
  })
})
