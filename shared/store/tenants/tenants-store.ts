/**
 * Tenants: global items addressed by slug (the Host names it) and an id → slug pointer (workers get
 * ids). A new tenant is written with its counters, seeded roles and first account in one
 * transaction, so a sign-up is all or nothing.
 */
import type { UpdateCommandInput } from '@aws-sdk/lib-dynamodb'
import * as v from 'valibot'
import { config } from '../../config.ts'
import type { Effects } from '../../domain/events.ts'
import { planIds } from '../../domain/plans/catalog.ts'
import { tenantKinds, tenantStatuses, type Tenant, type TenantStatus } from '../../domain/tenants/tenant.ts'
import type { PlanId } from '../../domain/errors.ts'
import { userCounterTotals } from '../../domain/users/user-counters.ts'
import type { SeededRole, User } from '../../domain/users/user.ts'
import { countersPutParams } from './counters.ts'
import { batchGet, getItem, isConditionalCheckFailed, updateItem, type Item } from '../core/db.ts'
import { decodeItem, nullable, withDefault } from '../core/decode.ts'
import { cond, conditionExpression, updateExpression } from '../core/expression.ts'
import { keys, type Key } from '../core/keys.ts'
import { effectSteps } from '../outbox/outbox-items.ts'
import { commit, type Step } from '../core/transaction.ts'
import { newUserItems } from '../users/users-store.ts'
import { tenantRegistryStep } from './tenant-registry.ts'

export type TenantRefusal = 'slug_taken'

const TenantItem = v.object({
  id: v.string(),
  slug: v.string(),
  name: v.string(),
  plan: v.picklist(planIds),
  kind: v.picklist(tenantKinds),
  status: v.picklist(tenantStatuses),
  skills_planning: withDefault(v.boolean(), false),
  monthly_api_cap: nullable(v.number()),
  period_start: withDefault(nullable(v.string()), null),
  created_at: v.string(),
  updated_at: v.string(),
})

const TenantPointer = v.object({ slug: v.string() })

/** @throws MalformedItem when the item is not a tenant */
function toTenant(item: Item): Tenant {
  const t = decodeItem('tenant', TenantItem, item)
  return {
    id: t.id,
    slug: t.slug,
    name: t.name,
    plan: t.plan,
    kind: t.kind,
    status: t.status,
    skillsPlanning: t.skills_planning,
    monthlyApiCap: t.monthly_api_cap,
    periodStart: t.period_start,
    createdAt: t.created_at,
    updatedAt: t.updated_at,
  }
}

export function tenantGetParams(slug: string): { Key: Key } {
  return { Key: keys.tenantBySlug(slug) }
}

export async function getTenantBySlug(slug: string): Promise<Tenant | undefined> {
  const item = await getItem(tenantGetParams(slug).Key)
  return item ? toTenant(item) : undefined
}

/** The tenant of a tenant id as stored now (no cache): for callers that must see the latest state. */
export async function findTenantById(id: string): Promise<Tenant | undefined> {
  const pointer = await getItem(keys.tenantIdToSlug(id))
  return pointer ? getTenantBySlug(decodeItem('tenant pointer', TenantPointer, pointer).slug) : undefined
}

/** The tenants of these slugs (100 per call); a slug without a tenant is left out. */
export async function getTenantsBySlugs(slugs: readonly string[]): Promise<Tenant[]> {
  return (await batchGet(slugs.map((slug) => keys.tenantBySlug(slug)))).map(toTenant)
}

const byId = new Map<string, { tenant: Tenant; until: number }>()

/**
 * The tenant of a tenant id (workers get ids, not hosts). Like the tenant from Host, reused for
 * LMS_TENANT_CACHE_MS by a warm container.
 */
export async function getTenantById(id: string): Promise<Tenant | undefined> {
  const now = Date.now()
  const hit = byId.get(id)
  if (hit && hit.until > now) return hit.tenant
  const tenant = await findTenantById(id)
  if (tenant && config.tenantCacheMs > 0) byId.set(id, { tenant, until: now + config.tenantCacheMs })
  return tenant
}

/** A new tenant, the roles every tenant starts with, its first account (sign-up) and what it causes. */
export interface NewTenant {
  readonly tenant: Tenant
  readonly seededRoles: readonly SeededRole[]
  readonly owner?: User
  readonly effects?: Effects
}

function tenantItem(tenant: Tenant): Item {
  return {
    ...keys.tenantBySlug(tenant.slug),
    type: 'tenant',
    id: tenant.id,
    slug: tenant.slug,
    name: tenant.name,
    plan: tenant.plan,
    kind: tenant.kind,
    status: tenant.status,
    skills_planning: tenant.skillsPlanning,
    monthly_api_cap: tenant.monthlyApiCap,
    period_start: tenant.periodStart,
    created_at: tenant.createdAt,
    updated_at: tenant.updatedAt,
  }
}

function seededRoleItem(tenant: Tenant, role: SeededRole): Item {
  return {
    ...keys.customRole(tenant, role.id),
    type: 'custom_role',
    id: role.id,
    name: role.name,
    permissions: [...role.permissions],
    seeded: true,
  }
}

/**
 * The tenant (refused as `slug_taken` when its slug is), its id pointer, its counters (the owner's
 * share included), its seeded roles, its owner and the effects.
 */
export function insertTenantSteps({
  tenant,
  seededRoles,
  owner,
  effects = {},
}: NewTenant): Step<TenantRefusal>[] {
  const put = (Item: Item): Step<never> => ({ item: { Put: { Item } } })
  const counters = { users_total: 0, users_active: 0, ...userCounterTotals(owner ? [owner] : []) }
  return [
    {
      item: { Put: { Item: tenantItem(tenant), ...conditionExpression(cond.notExists()) } },
      refusal: 'slug_taken',
    },
    put({ ...keys.tenantIdToSlug(tenant.id), slug: tenant.slug }),
    { item: { Put: countersPutParams(tenant, counters) } },
    ...seededRoles.map((role) => put(seededRoleItem(tenant, role))),
    ...(owner ? newUserItems(tenant, owner).map(put) : []),
    ...effectSteps(tenant, effects),
    tenantRegistryStep(tenant),
  ]
}

/** @throws WriteRefused naming `slug_taken` */
export async function insertTenant(change: NewTenant): Promise<void> {
  await commit(insertTenantSteps(change))
}

export interface TenantChanges {
  plan?: PlanId
  status?: TenantStatus
  skillsPlanning?: boolean
  monthlyApiCap?: number | null
  periodStart?: string | null
  name?: string
}

const changeAttributes: readonly [keyof TenantChanges, string][] = [
  ['plan', 'plan'],
  ['status', 'status'],
  ['skillsPlanning', 'skills_planning'],
  ['monthlyApiCap', 'monthly_api_cap'],
  ['periodStart', 'period_start'],
  ['name', 'name'],
]

/** The fields given (undefined ones stay) of an existing tenant, returning the tenant as it is now. */
export function updateTenantParams(
  slug: string,
  changes: TenantChanges,
  now: string,
): Omit<UpdateCommandInput, 'TableName'> {
  const set: Record<string, unknown> = { updated_at: now }
  for (const [field, attr] of changeAttributes) if (changes[field] !== undefined) set[attr] = changes[field]
  return {
    Key: keys.tenantBySlug(slug),
    ...updateExpression({ set }, cond.exists()),
    ReturnValues: 'ALL_NEW',
  }
}

/** @returns the tenant as changed; undefined when there is no such tenant */
export async function updateTenant(
  slug: string,
  changes: TenantChanges,
  now: string,
): Promise<Tenant | undefined> {
  try {
    const item = await updateItem(updateTenantParams(slug, changes, now))
    return item ? toTenant(item) : undefined
  } catch (err) {
    if (isConditionalCheckFailed(err)) return undefined
    throw err
  }
}
