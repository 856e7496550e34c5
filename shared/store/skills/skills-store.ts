/**
 * Skill domains, skills and people's held skills. A held skill is one item per person and skill,
 * written conditioned on the state it was decided from (absent, or the `updated_at` read), with its
 * `skill.attained` event in the same transaction: a rise is recorded, and announced, exactly once.
 */
import type { Effects } from '../../domain/events.ts'
import { type HeldSkill, type Skill, type SkillDomain } from '../../domain/skills/skill.ts'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import { batchPut, getItem, putItem, queryAll, updateItem, type Item } from '../core/db.ts'
import { cond, conditionExpression, queryExpression, updateExpression } from '../core/expression.ts'
import { heldSkillStep, heldSkillSteps } from './held-skill-items.ts'
import { heldSkillEntity, skillDomainEntity, skillEntity } from './skill-entities.ts'
import { seedSummaryLevels, summaryForgetStep } from './skill-summaries.ts'
import { keyPrefix, queryPrefixInSegments } from './skills-scan.ts'
import { keys } from '../core/keys.ts'
import { effectSteps } from '../outbox/outbox-items.ts'
import { commit, writeOrRefuse, type Step } from '../core/transaction.ts'

/** `stale`: the held skill changed since it was read; `not_found`: the skill is gone. */
export type SkillRefusal = 'stale' | 'not_found' | 'exists'

const toDomain = (item: Item): SkillDomain => skillDomainEntity.decode(item)
const toSkill = (item: Item): Skill => skillEntity.decode(item)
const toHeld = (item: Item): HeldSkill => heldSkillEntity.decode(item)

const prefixQuery = (tenant: TenantContext, prefix: string) =>
  queryExpression({
    key: keyPrefix(tenant, prefix),
  })

export function insertDomainParams(tenant: TenantContext, d: SkillDomain) {
  return {
    Item: skillDomainEntity.item(tenant, d),
    ...conditionExpression(cond.notExists()),
  }
}

export async function insertDomain(tenant: TenantContext, d: SkillDomain): Promise<void> {
  await writeOrRefuse(putItem(insertDomainParams(tenant, d)), 'exists')
}

export async function getDomain(tenant: TenantContext, id: string): Promise<SkillDomain | undefined> {
  const item = await getItem(keys.skillDomain(tenant, id))
  return item ? toDomain(item) : undefined
}

/** Domains and skills number in the hundreds: each list is one Query on its prefix. */
export async function listDomains(tenant: TenantContext): Promise<SkillDomain[]> {
  return (await queryAll(prefixQuery(tenant, keys.skillDomainPrefix))).map(toDomain)
}

export function listSkillsParams(tenant: TenantContext) {
  return prefixQuery(tenant, keys.skillPrefix)
}

export async function listSkills(tenant: TenantContext): Promise<Skill[]> {
  return (await queryAll(listSkillsParams(tenant))).map(toSkill)
}

export async function getSkill(tenant: TenantContext, id: string): Promise<Skill | undefined> {
  const item = await getItem(keys.skill(tenant, id))
  return item ? toSkill(item) : undefined
}

export function insertSkillParams(tenant: TenantContext, s: Skill) {
  return {
    Item: skillEntity.item(tenant, s),
    ...conditionExpression(cond.notExists()),
  }
}

export async function insertSkill(tenant: TenantContext, s: Skill): Promise<void> {
  await writeOrRefuse(putItem(insertSkillParams(tenant, s)), 'exists')
}

/**
 * What a change makes different on a skill that exists (a cleared French name or description is
 * removed): only those attributes are written, so two changes of different fields both land.
 */
export function saveSkillParams(tenant: TenantContext, before: Skill, after: Skill) {
  return {
    Key: keys.skill(tenant, after.id),
    ...updateExpression(skillEntity.changeOf(before, after), cond.exists()),
  }
}

/** @throws WriteRefused<SkillRefusal>: `not_found` */
export async function saveSkill(tenant: TenantContext, before: Skill, after: Skill): Promise<void> {
  await writeOrRefuse(updateItem(saveSkillParams(tenant, before, after)), 'not_found')
}

export function heldSkillsOfUserParams(tenant: TenantContext, userId: string) {
  return { ...prefixQuery(tenant, keys.heldSkillsOfUserPrefix(userId)), ConsistentRead: true }
}

export async function heldSkillsOfUser(tenant: TenantContext, userId: string): Promise<HeldSkill[]> {
  return (await queryAll(heldSkillsOfUserParams(tenant, userId))).map(toHeld)
}

/** Every held skill of the tenant, strongly consistent, in 16 key ranges: the summaries' backfill. */
export async function allHeldSkills(tenant: TenantContext): Promise<HeldSkill[]> {
  return (await queryPrefixInSegments(tenant, keys.heldSkillPrefix, { consistent: true })).map(toHeld)
}

export async function getHeldSkill(
  tenant: TenantContext,
  userId: string,
  skillId: string,
): Promise<HeldSkill | undefined> {
  const item = await getItem(keys.heldSkill(tenant, userId, skillId), { ConsistentRead: true })
  return item ? toHeld(item) : undefined
}

/**
 * The held skill as `after`, only if it is still as `before` was read (absent when undefined), with
 * the change's effects in the same transaction.
 */
export function saveHeldSkillSteps(
  tenant: TenantContext,
  change: { readonly before: HeldSkill | undefined; readonly after: HeldSkill; readonly effects: Effects },
): Step<SkillRefusal>[] {
  return [...heldSkillSteps(tenant, [change]), ...effectSteps(tenant, change.effects)]
}

/** @throws WriteRefused<SkillRefusal>: `stale` */
export async function saveHeldSkill(
  tenant: TenantContext,
  change: { readonly before: HeldSkill | undefined; readonly after: HeldSkill; readonly effects: Effects },
): Promise<void> {
  await commit(saveHeldSkillSteps(tenant, change))
}

/**
 * The person's held skill removed, only if it is still as read (`updated_at`), and out of their
 * summary in the same transaction. No event: the specification announces rises only.
 * @throws WriteRefused<SkillRefusal>: `stale`
 */
export async function removeHeldSkill(tenant: TenantContext, held: HeldSkill): Promise<void> {
  const asRead = conditionExpression(cond.eq('updated_at', held.updatedAt))
  await commit<SkillRefusal>([
    {
      item: { Delete: { Key: keys.heldSkill(tenant, held.userId, held.skillId), ...asRead } },
      refusal: 'stale',
    },
    summaryForgetStep(tenant, held.userId, held.skillId),
  ])
}

/**
 * Bulk-loads held skills into a tenant that has none, with their summaries: for benchmarks only
 * (no condition, no event).
 */
export async function seedHeldSkills(tenant: TenantContext, held: readonly HeldSkill[]): Promise<void> {
  await batchPut(
    held.map((h) => heldSkillStep(tenant, { before: undefined, after: h }).item.Put?.Item ?? {}),
    16,
  )
  await seedSummaryLevels(tenant, held)
}
