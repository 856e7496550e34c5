/**
 * Holdings and held skills written before the skills summaries existed have none: the matrix's
 * status filter does not see those people until the backfill has built their summaries from the
 * items (docs/decisions/0032). The backfill is idempotent and loses no change that lands while it
 * runs.
 */
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb'
import { afterEach, describe, expect, it } from 'vitest'
import { doc, tableName } from '../../local/sdk-clients.ts'
import { assignRole, createJobRole } from '../../shared/services/skills/job-roles-service.ts'
import { backfillSkillSummaries } from '../../shared/services/skills/skill-summaries-service.ts'
import { updateTenant } from '../../shared/services/tenants/tenants-service.ts'
import { keys } from '../../shared/store/core/keys.ts'
import { wrapDynamoDbCalls } from '../helpers/dynamodb-calls.ts'
import { user } from '../helpers/learning.ts'
import { hold, makeDomain, makeSkill } from '../helpers/skills.ts'
import { newTenant, type TestTenant } from '../helpers/tenants.ts'

let unwrap: (() => void) | undefined

afterEach(() => {
  unwrap?.()
})

async function kept(t: TestTenant, status: string): Promise<string[]> {
  const reply = await t.api.get(`/api/v1/skills/matrix?status=${status}`)
  expect(reply.status).toBe(200)
  return (reply.body.data as { user: { last_name: string } }[]).map((r) => r.user.last_name)
}

/** What an item written before this change looks like: no summary at all. */
const dropSummary = (t: TestTenant, userId: string) =>
  doc.send(new DeleteCommand({ TableName: tableName, Key: keys.skillSummary(t.tenant, userId) }))

async function setting() {
  const t = await newTenant('growth')
  await updateTenant(t.slug, { skillsPlanning: true })
  const d = await makeDomain(t.tenant)
  const skill = await makeSkill(t.tenant, d.id, 'Rigging')
  const role = await createJobRole(t.tenant, {
    name: 'Rigger',
    required_skills: [{ skill_id: skill.id, required_level: 'developing' }],
  })
  return { t, skill: skill.id, role: role.id }
}

describe('Function: backfillSkillSummaries', () => {
  it('builds the summaries missing or wrong, so the status filter sees everyone, and writes nothing the second time', async () => {
    // Prepare
    const { t, skill, role } = await setting()
    const low = (await user(t, { last_name: 'Low' })).id
    const spare = (await user(t, { last_name: 'Spare' })).id
    const unassessed = (await user(t, { last_name: 'Unassessed' })).id
    await user(t, { last_name: 'Nobody' })
    await assignRole(t.tenant, low, role, 'manual')
    await hold(t.tenant, low, skill, 'awareness')
    await hold(t.tenant, spare, skill, 'awareness')
    await assignRole(t.tenant, unassessed, role, 'import')
    await Promise.all([dropSummary(t, low), dropSummary(t, spare)])
    // A summary that says nothing, under a version a live write could have left.
    await doc.send(
      new PutCommand({
        TableName: tableName,
        Item: {
          ...keys.skillSummary(t.tenant, unassessed),
          type: 'skill_summary',
          user_id: unassessed,
          version: 7,
        },
      }),
    )
    expect(await kept(t, 'below_1,not_required,not_assessed')).toEqual([])

    // Act
    const first = await backfillSkillSummaries(t.tenant)
    const second = await backfillSkillSummaries(t.tenant)

    // Assess
    expect(first).toEqual({ people: 3, written: 3 })
    expect(second).toEqual({ people: 3, written: 0 })
    expect(await kept(t, 'below_1')).toEqual(['Low'])
    expect(await kept(t, 'not_required')).toEqual(['Spare'])
    expect(await kept(t, 'not_assessed')).toEqual(['Unassessed'])
  })

  it('keeps a level recorded between its reads and its write (the write is refused, then the person redone alone)', async () => {
    // Prepare
    const { t, skill, role } = await setting()
    const ann = (await user(t, { last_name: 'Archer' })).id
    await assignRole(t.tenant, ann, role, 'manual')
    await hold(t.tenant, ann, skill, 'awareness')
    await dropSummary(t, ann)
    let raised = false
    unwrap = wrapDynamoDbCalls((next) => async (operation, input) => {
      const items = (input.TransactItems ?? []) as { Put?: { Item?: { sk?: { S?: string } } } }[]
      const writesSummaries = items.some((i) => i.Put?.Item?.sk?.S?.startsWith('USKILLSUM#'))
      if (!raised && operation === 'TransactWriteItems' && writesSummaries) {
        raised = true
        await hold(t.tenant, ann, skill, 'expert')
      }
      return next(operation, input)
    })

    // Act
    const done = await backfillSkillSummaries(t.tenant)

    // Assess
    unwrap()
    expect(raised).toBe(true)
    expect(done).toEqual({ people: 1, written: 1 })
    expect(await kept(t, 'below_1')).toEqual([])
    expect(await kept(t, 'exceeds')).toEqual(['Archer'])
  })
})
