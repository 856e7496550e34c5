/**
 * A person's skills summary item (`USKILLSUM#<userId>`): the role ids they hold (a string set) and
 * one attribute per held skill (`held:<skillId>`, what a matrix cell shows of it). Every write of a
 * holding or a held skill changes it in the same transaction, by an update that needs no read (add
 * or take a role id, set a skill's attribute) while the holding's or held skill's own condition
 * guarantees the change is made against the state it was decided from; `version` moves with each,
 * so the backfill can rewrite a summary whole only if no such write came in between.
 * docs/decisions/0032-skills-summary.md.
 */
import * as v from 'valibot'
import { mapLimit } from '../../concurrency.ts'
import { skillLevels } from '../../domain/skills/skill.ts'
import type { HeldLevel, SkillSummary } from '../../domain/skills/summary.ts'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import { batchGet, getItem, putItem, updateItem, type Item } from '../core/db.ts'
import { decodeItem, nullable, unlessEmpty, withDefault } from '../core/decode.ts'
import { cond, conditionExpression, updateExpression } from '../core/expression.ts'
import { keys } from '../core/keys.ts'
import { writeOrRefuse, type Step } from '../core/transaction.ts'
import { queryPrefixInSegments } from './skills-scan.ts'

const HELD_PREFIX = 'held:'
const heldAttribute = (skillId: string) => `${HELD_PREFIX}${skillId}`

const SummaryItem = v.object({
  user_id: v.string(),
  roles: withDefault(v.set(v.string()), new Set<string>()),
  version: withDefault(v.number(), 0),
})

const HeldEntry = v.object({
  level: nullable(v.picklist(skillLevels)),
  valid_until: nullable(v.string()),
  pending_claim_level: nullable(v.picklist(skillLevels)),
})

/** A held skill as its summary attribute: nulls are left out. */
const heldEntry = (h: HeldLevel) => ({
  level: unlessEmpty(h.level),
  valid_until: unlessEmpty(h.validUntil),
  pending_claim_level: unlessEmpty(h.pendingClaimLevel),
})

export interface StoredSummary {
  readonly summary: SkillSummary
  readonly version: number
}

export function toSkillSummary(item: Item): StoredSummary {
  const i = decodeItem('skills summary', SummaryItem, item)
  const held = Object.entries(item)
    .filter(([name]) => name.startsWith(HELD_PREFIX))
    .map(([name, value]): HeldLevel => {
      const e = decodeItem('skills summary', HeldEntry, { pk: item.pk, sk: item.sk, ...(value as Item) })
      return {
        skillId: name.slice(HELD_PREFIX.length),
        level: e.level,
        validUntil: e.valid_until,
        pendingClaimLevel: e.pending_claim_level,
      }
    })
  return { summary: { userId: i.user_id, roleIds: [...i.roles].sort(), held }, version: i.version }
}

const identity = (userId: string) => ({ type: 'skill_summary', user_id: userId })

/**
 * The person's held skills as they now are, into their summary (created if missing). No condition
 * of its own: it rides in the transaction of the held skills' conditioned writes.
 */
export function summaryLevelsStep(
  tenant: TenantContext,
  userId: string,
  held: readonly HeldLevel[],
): Step<never> {
  const levels = Object.fromEntries(held.map((h) => [heldAttribute(h.skillId), heldEntry(h)]))
  return {
    item: {
      Update: {
        Key: keys.skillSummary(tenant, userId),
        ...updateExpression({ set: { ...identity(userId), ...levels }, add: { version: 1 } }),
      },
    },
  }
}

/** A held skill the person no longer has, out of their summary. Rides in the held skill's transaction. */
export function summaryForgetStep(tenant: TenantContext, userId: string, skillId: string): Step<never> {
  return {
    item: {
      Update: {
        Key: keys.skillSummary(tenant, userId),
        ...updateExpression({ set: identity(userId), add: { version: 1 }, remove: [heldAttribute(skillId)] }),
      },
    },
  }
}

/**
 * A role the person starts (`held`) or stops holding, into their summary (created if missing). No
 * condition of its own: it rides in the transaction of the holding's conditioned write.
 */
export function summaryRoleStep(
  tenant: TenantContext,
  userId: string,
  roleId: string,
  held: boolean,
): Step<never> {
  const role = new Set([roleId])
  return {
    item: {
      Update: {
        Key: keys.skillSummary(tenant, userId),
        ...updateExpression({
          set: identity(userId),
          add: held ? { version: 1, roles: role } : { version: 1 },
          ...(held ? {} : { delete: { roles: role } }),
        }),
      },
    },
  }
}

/**
 * The summary written whole, only if it is still as read (`version`), or still absent: the
 * backfill's write, which no holding or held-skill write may have overtaken.
 */
export function replaceSummaryStep(
  tenant: TenantContext,
  summary: SkillSummary,
  versionRead: number | undefined,
): Step<'stale'> {
  return { item: { Put: replaceSummaryParams(tenant, summary, versionRead) }, refusal: 'stale' }
}

export function replaceSummaryParams(
  tenant: TenantContext,
  summary: SkillSummary,
  versionRead: number | undefined,
) {
  return {
    Item: {
      ...keys.skillSummary(tenant, summary.userId),
      ...identity(summary.userId),
      ...(summary.roleIds.length > 0 ? { roles: new Set(summary.roleIds) } : {}),
      ...Object.fromEntries(summary.held.map((h) => [heldAttribute(h.skillId), heldEntry(h)])),
      version: (versionRead ?? 0) + 1,
    },
    ...conditionExpression(versionRead === undefined ? cond.notExists() : cond.eq('version', versionRead)),
  }
}

/** @throws WriteRefused `stale` when the summary changed (or appeared) since it was read */
export async function replaceSkillSummary(
  tenant: TenantContext,
  summary: SkillSummary,
  versionRead: number | undefined,
): Promise<void> {
  await writeOrRefuse(putItem(replaceSummaryParams(tenant, summary, versionRead)), 'stale')
}

export async function getSkillSummary(
  tenant: TenantContext,
  userId: string,
): Promise<StoredSummary | undefined> {
  const item = await getItem(keys.skillSummary(tenant, userId), { ConsistentRead: true })
  return item ? toSkillSummary(item) : undefined
}

/** Every summary of the tenant, in 16 key ranges side by side (skills-scan.ts). */
export async function allSkillSummaries(tenant: TenantContext): Promise<SkillSummary[]> {
  return (await queryPrefixInSegments(tenant, keys.skillSummaryPrefix)).map((i) => toSkillSummary(i).summary)
}

/** Every summary with its version, strongly consistent: what the backfill conditions its writes on. */
export async function allStoredSummaries(tenant: TenantContext): Promise<StoredSummary[]> {
  return (await queryPrefixInSegments(tenant, keys.skillSummaryPrefix, { consistent: true })).map(
    toSkillSummary,
  )
}

/** The summaries of these people (those who have one), by key. */
export async function skillSummariesOf(
  tenant: TenantContext,
  userIds: readonly string[],
): Promise<SkillSummary[]> {
  const items = await batchGet([...new Set(userIds)].map((id) => keys.skillSummary(tenant, id)))
  return items.map((i) => toSkillSummary(i).summary)
}

function byUser<T extends { readonly userId: string }>(items: readonly T[]): Map<string, T[]> {
  const out = new Map<string, T[]>()
  for (const item of items) out.set(item.userId, [...(out.get(item.userId) ?? []), item])
  return out
}

/** Seeding only (benchmarks): each person's summary gains these roles, one update a person. */
export async function seedSummaryRoles(
  tenant: TenantContext,
  holdings: readonly { readonly userId: string; readonly jobRoleId: string }[],
): Promise<void> {
  await mapLimit([...byUser(holdings)], 16, async ([userId, list]) => {
    await updateItem({
      Key: keys.skillSummary(tenant, userId),
      ...updateExpression({
        set: identity(userId),
        add: { version: 1, roles: new Set(list.map((h) => h.jobRoleId)) },
      }),
    })
  })
}

/** Seeding only (benchmarks): each person's summary gains these held skills, one update a person. */
export async function seedSummaryLevels(
  tenant: TenantContext,
  held: readonly (HeldLevel & { readonly userId: string })[],
): Promise<void> {
  await mapLimit([...byUser(held)], 16, async ([userId, list]) => {
    const update = summaryLevelsStep(tenant, userId, list).item.Update
    if (update) await updateItem(update)
  })
}
