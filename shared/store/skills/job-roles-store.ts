/**
 * Job roles and who holds them. A role's name is unique among live roles ignoring case through a
 * guard item keyed by the lower-cased name (as groups). A person's hold on a role is one item with
 * every source it comes from (`manual`, `profile`, `import`); the role's `holder_count` moves only
 * when that item is created or deleted, in the same transaction and conditioned on the holding
 * being as read, so a role held through two sources counts once and the count never drifts.
 */
import * as v from 'valibot'
import type { Effects } from '../../domain/events.ts'
import { roleSources, type JobRole, type RoleHolding } from '../../domain/skills/job-role.ts'
import { skillLevels } from '../../domain/skills/skill.ts'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import { batchGet, batchPut, getItem, queryAll, type Item } from '../core/db.ts'
import { withDefault } from '../core/decode.ts'
import { defineEntity, field, listField, optionalField } from '../core/entity.ts'
import { cond, conditionExpression, queryExpression, updateExpression } from '../core/expression.ts'
import { indexes, keys } from '../core/keys.ts'
import { effectSteps } from '../outbox/outbox-items.ts'
import { keyPrefix, queryPrefixInSegments } from './skills-scan.ts'
import { commit, type Step } from '../core/transaction.ts'
import { uniqueNames } from '../core/unique-names.ts'
import { seedSummaryRoles, summaryRoleStep } from './skill-summaries.ts'

/**
 * `name_taken` (another role has the name, ignoring case), `stale` (the role or the holding
 * changed since read), `role_inactive` (a role deactivated or missing while being assigned),
 * `user_missing` (the person is not a user of the tenant, or was erased), `exists`.
 */
export type JobRoleRefusal = 'name_taken' | 'stale' | 'role_inactive' | 'user_missing' | 'exists'

const roleEntity = defineEntity(
  'job_role',
  {
    id: field('id', v.string()),
    name: field('name', v.string()),
    description: optionalField('description', v.string()),
    key: optionalField('key', v.string()),
    isActive: field('is_active', v.boolean()),
    requirements: listField('required_skills', {
      skillId: field('skill_id', v.string()),
      requiredLevel: field('required_level', v.picklist(skillLevels)),
      reviewedAt: field('reviewed_at', v.string()),
    }),
    holderCount: field('holder_count', withDefault(v.number(), 0)),
    createdAt: field('created_at', v.string()),
    updatedAt: field('updated_at', v.string()),
  },
  { key: (tenant: TenantContext, r) => keys.jobRole(tenant, r.id) },
)

/** gsi4 lists a role's holders. */
const holdingEntity = defineEntity(
  'role_holding',
  {
    userId: field('user_id', v.string()),
    jobRoleId: field('job_role_id', v.string()),
    sources: field('sources', v.pipe(v.array(v.picklist(roleSources)), v.readonly())),
    version: field('version', v.number()),
  },
  {
    key: (tenant: TenantContext, h) => keys.roleHolding(tenant, h.userId, h.jobRoleId),
    derived: (tenant, h) => ({
      [indexes.gsi4.pk]: keys.roleHoldersIndexPk(tenant, h.jobRoleId),
      [indexes.gsi4.sk]: h.userId,
    }),
  },
)

const toRole = (item: Item): JobRole => roleEntity.decode(item)
const toHolding = (item: Item): RoleHolding => holdingEntity.decode(item)

export async function getJobRole(tenant: TenantContext, id: string): Promise<JobRole | undefined> {
  const item = await getItem(keys.jobRole(tenant, id))
  return item ? toRole(item) : undefined
}

export async function getJobRoles(tenant: TenantContext, ids: readonly string[]): Promise<JobRole[]> {
  return (await batchGet([...new Set(ids)].map((id) => keys.jobRole(tenant, id)))).map(toRole)
}

export function listJobRolesParams(tenant: TenantContext) {
  return queryExpression({
    key: keyPrefix(tenant, keys.jobRolePrefix),
  })
}

/** Every role of the tenant (roles number in the hundreds: one Query). */
export async function listJobRoles(tenant: TenantContext): Promise<JobRole[]> {
  return (await queryAll(listJobRolesParams(tenant))).map(toRole)
}

/** Names are unique ignoring case. */
const roleNames = uniqueNames(keys.jobRoleName, 'job_role_name_guard', 'job_role_id')

export function insertJobRoleSteps(tenant: TenantContext, role: JobRole): Step<JobRoleRefusal>[] {
  return [
    roleNames.claim(tenant, role.name, role.id),
    {
      item: {
        Put: {
          // Holders join in their own writes, which move the count.
          Item: roleEntity.item(tenant, { ...role, holderCount: 0 }),
          ...conditionExpression(cond.notExists()),
        },
      },
      refusal: 'exists',
    },
  ]
}

/** @throws WriteRefused<JobRoleRefusal>: `name_taken` */
export async function insertJobRole(tenant: TenantContext, role: JobRole): Promise<void> {
  await commit(insertJobRoleSteps(tenant, role))
}

/**
 * A role's new name, description, activity or requirements, conditioned on it being unchanged
 * since `before` was read (`holder_count` is not part of it: holders move it on their own); a new
 * name (other than by case) takes its guard and frees the old one.
 */
export function saveJobRoleSteps(
  tenant: TenantContext,
  change: { readonly before: JobRole; readonly after: JobRole },
): Step<JobRoleRefusal>[] {
  const { before, after } = change
  const edited = roleEntity.changeOf(before, after, ['name', 'description', 'isActive', 'requirements'])
  return [
    ...roleNames.rename(tenant, before.name, after.name, after.id),
    {
      item: {
        Update: {
          Key: keys.jobRole(tenant, before.id),
          ...updateExpression(
            { set: { ...edited.set, updated_at: after.updatedAt }, remove: edited.remove },
            cond.and(cond.exists(), cond.eq('updated_at', before.updatedAt)),
          ),
        },
      },
      refusal: 'stale',
    },
  ]
}

/** @throws WriteRefused<JobRoleRefusal>: `name_taken`, `stale` */
export async function saveJobRole(
  tenant: TenantContext,
  change: { readonly before: JobRole; readonly after: JobRole },
): Promise<void> {
  await commit(saveJobRoleSteps(tenant, change))
}

export function holdingsOfUserParams(tenant: TenantContext, userId: string) {
  return {
    ...queryExpression({
      key: keyPrefix(tenant, keys.roleHoldingsOfUserPrefix(userId)),
    }),
    ConsistentRead: true,
  }
}

export async function holdingsOfUser(tenant: TenantContext, userId: string): Promise<RoleHolding[]> {
  return (await queryAll(holdingsOfUserParams(tenant, userId))).map(toHolding)
}

/** Every holding of the tenant, strongly consistent, in 16 key ranges: the summaries' backfill. */
export async function allHoldings(tenant: TenantContext): Promise<RoleHolding[]> {
  return (await queryPrefixInSegments(tenant, keys.roleHoldingPrefix, { consistent: true })).map(toHolding)
}

export function holdersOfRoleParams(tenant: TenantContext, roleId: string) {
  return {
    IndexName: indexes.gsi4.name,
    ...queryExpression({ key: cond.eq(indexes.gsi4.pk, keys.roleHoldersIndexPk(tenant, roleId)) }),
  }
}

/** The user ids holding the role (gsi4). */
export async function holdersOfRole(tenant: TenantContext, roleId: string): Promise<string[]> {
  return (await queryAll(holdersOfRoleParams(tenant, roleId))).map((i) => toHolding(i).userId)
}

export interface HoldingChange {
  readonly userId: string
  readonly jobRoleId: string
  /** undefined: the person did not hold the role. */
  readonly before: RoleHolding | undefined
  /** undefined: the person no longer holds the role (no source left). */
  readonly after: RoleHolding | undefined
  readonly effects: Effects
}

/**
 * One holding's change as one transaction: the holding conditioned on its version (or absence),
 * the role's count and the person's skills summary when the person starts or stops holding it (a
 * new holder needs the role active), the user's existence, and the change's events.
 */
export function holdingChangeSteps(tenant: TenantContext, c: HoldingChange): Step<JobRoleRefusal>[] {
  const key = keys.roleHolding(tenant, c.userId, c.jobRoleId)
  const asRead = c.before ? cond.eq('version', c.before.version) : cond.notExists()
  const holdingStep: Step<JobRoleRefusal> = c.after
    ? {
        item: {
          Put: {
            Item: holdingEntity.item(tenant, c.after),
            ...conditionExpression(asRead),
          },
        },
        refusal: 'stale',
      }
    : { item: { Delete: { Key: key, ...conditionExpression(asRead) } }, refusal: 'stale' }
  const delta = (c.after ? 1 : 0) - (c.before ? 1 : 0)
  const countStep: Step<JobRoleRefusal>[] =
    delta === 0
      ? []
      : [
          summaryRoleStep(tenant, c.userId, c.jobRoleId, delta > 0),
          {
            item: {
              Update: {
                Key: keys.jobRole(tenant, c.jobRoleId),
                ...updateExpression(
                  { add: { holder_count: delta } },
                  delta > 0 ? cond.eq('is_active', true) : cond.exists(),
                ),
              },
            },
            refusal: 'role_inactive',
          },
        ]
  const userStep: Step<JobRoleRefusal>[] = c.after
    ? [
        {
          item: {
            // An erased person holds nothing (their roles were released at erasure).
            ConditionCheck: {
              Key: keys.user(tenant, c.userId),
              ...conditionExpression(cond.and(cond.exists(), cond.notExists('erased_at'))),
            },
          },
          refusal: 'user_missing',
        },
      ]
    : []
  return [holdingStep, ...countStep, ...userStep, ...effectSteps(tenant, c.effects)]
}

/** @throws WriteRefused<JobRoleRefusal>: `stale`, `role_inactive`, `user_missing` */
export async function changeHolding(tenant: TenantContext, c: HoldingChange): Promise<void> {
  await commit(holdingChangeSteps(tenant, c))
}

/**
 * Bulk-loads holdings into a tenant that has none, with their summaries: for benchmarks only. No
 * condition, no count (`holder_count` is not moved), no event.
 */
export async function seedHoldings(tenant: TenantContext, holdings: readonly RoleHolding[]): Promise<void> {
  await batchPut(
    holdings.map((h) => holdingEntity.item(tenant, h)),
    16,
  )
  await seedSummaryRoles(tenant, holdings)
}
