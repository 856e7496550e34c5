/**
 * Tenants: global items addressed by slug (the Host names it) and a copy of each addressed by id
 * (workers get ids), so either lookup is one read. Both are written together in one transaction,
 * guarded by the slug item's version, so the copy never lags. A new tenant is written with its
 * counters, seeded roles and first account in one transaction, so a sign-up is all or nothing.
 */
import * as v from 'valibot'
import type { Effects } from '../../domain/events.ts'
import { planIds } from '../../domain/plans/catalog.ts'
import { tenantKinds, tenantStatuses, type Tenant, type TenantStatus } from '../../domain/tenants/tenant.ts'
import type { PlanId } from '../../domain/errors.ts'
import { userCounterTotals } from '../../domain/users/user-counters.ts'
import type { SeededRole, User } from '../../domain/users/user.ts'
import { countersPutParams } from './counters.ts'
import { batchGet, getItem, type Item } from '../core/db.ts'
import { decodeItem, nullable, withDefault } from '../core/decode.ts'
import { defineEntity, field } from '../core/entity.ts'
import { cond, conditionExpression } from '../core/expression.ts'
import { keys, type Key } from '../core/keys.ts'
import { effectSteps } from '../outbox/outbox-items.ts'
import { retryOnConflict } from '../core/optimistic.ts'
import { commit, type Step } from '../core/transaction.ts'
import { newUserItems } from '../users/users-store.ts'
import { tenantRegistryStep } from './tenant-registry.ts'

export type TenantRefusal = 'slug_taken'

/**
 * The same attributes under two keys: the slug item (`bySlug`) and its copy by id (`byId`). The
 * caps and period are stored as null when unset, as they always were; `version` guards changes.
 */
const tenantEntity = defineEntity(
  'tenant',
  {
    id: field('id', v.string()),
    slug: field('slug', v.string()),
    name: field('name', v.string()),
    plan: field('plan', v.picklist(planIds)),
    kind: field('kind', v.picklist(tenantKinds)),
    status: field('status', v.picklist(tenantStatuses)),
    skillsPlanning: field('skills_planning', withDefault(v.boolean(), false)),
    monthlyApiCap: field('monthly_api_cap', nullable(v.number())),
    periodStart: field('period_start', nullable(v.string())),
    createdAt: field('created_at', v.string()),
    updatedAt: field('updated_at', v.string()),
    // Items from before versions count as version 0.
    version: field('version', withDefault(v.number(), 0)),
  },
  {
    key: (at: 'bySlug' | 'byId', t) => (at === 'bySlug' ? keys.tenantBySlug(t.slug) : keys.tenantById(t.id)),
  },
)

/** What the id key held before it held a copy of the tenant: its slug only. */
const LegacyTenantPointer = v.object({ slug: v.string() })

/** @throws MalformedItem when the item is not a tenant */
function toTenant(item: Item): Tenant {
  return toVersionedTenant(item).tenant
}

function toVersionedTenant(item: Item): { tenant: Tenant; version: number } {
  const { version, ...tenant } = tenantEntity.decode(item)
  return { tenant, version }
}

export function tenantGetParams(slug: string): { Key: Key } {
  return { Key: keys.tenantBySlug(slug) }
}

export async function getTenantBySlug(slug: string): Promise<Tenant | undefined> {
  const item = await getItem(tenantGetParams(slug).Key)
  return item ? toTenant(item) : undefined
}

/**
 * The tenant of a tenant id as stored now, in one read of its copy. A tenant not changed since
 * before the copies has the legacy pointer there: its slug item is read after it.
 */
export async function findTenantById(id: string): Promise<Tenant | undefined> {
  const item = await getItem(keys.tenantById(id))
  if (!item) return undefined
  if (item.type === 'tenant') return toTenant(item)
  return getTenantBySlug(decodeItem('tenant pointer', LegacyTenantPointer, item).slug)
}

/**
 * The id items still holding the legacy pointer (decision 0028): what the tenant-copies migration
 * turns into copies (shared/services/migrations/).
 */
export const legacyTenantPointerFilter = cond.and(
  cond.beginsWith('pk', keys.tenantById('').pk),
  cond.or(cond.notExists('type'), cond.ne('type', 'tenant')),
)

/** One tenant's id item. */
export const tenantIdItemOf = (tenantId: string) => cond.eq('pk', keys.tenantById(tenantId).pk)

/** The tenant id of an id item (`TENANTID#<id>`); undefined for any other item. */
export function tenantIdOfIdItem(item: Item): string | undefined {
  const prefix = keys.tenantById('').pk
  return typeof item.pk === 'string' && item.pk.startsWith(prefix) ? item.pk.slice(prefix.length) : undefined
}

/**
 * Rewrites a tenant's legacy id pointer as a copy of the tenant, as a change of the tenant would
 * (both items over the slug item's version, once more if a change won meanwhile).
 * @returns whether it was a pointer (false: already a copy, or no such item or tenant)
 */
export async function replaceLegacyTenantPointer(tenantId: string): Promise<boolean> {
  return retryOnConflict(async () => {
    const idItem = await getItem(keys.tenantById(tenantId), { ConsistentRead: true })
    if (!idItem || idItem.type === 'tenant') return false
    const { slug } = decodeItem('tenant pointer', LegacyTenantPointer, idItem)
    const item = await getItem(keys.tenantBySlug(slug), { ConsistentRead: true })
    if (!item) return false
    const { tenant, version } = toVersionedTenant(item)
    await commit(tenantSteps(tenant, version))
    return true
  })
}

/** The tenants of these slugs (100 per call); a slug without a tenant is left out. */
export async function getTenantsBySlugs(slugs: readonly string[]): Promise<Tenant[]> {
  return (await batchGet(slugs.map((slug) => keys.tenantBySlug(slug)))).map(toTenant)
}

/** A new tenant, the roles every tenant starts with, its first account (sign-up) and what it causes. */
export interface NewTenant {
  readonly tenant: Tenant
  readonly seededRoles: readonly SeededRole[]
  readonly owner?: User
  readonly effects?: Effects
}

/**
 * Both items of a tenant: a new one (`over` undefined) claims its slug; a change is written only
 * over the version it was decided from, so two changes decided from the same read cannot both
 * land (items from before versions count as version 0).
 */
export function tenantSteps(tenant: Tenant, over?: number): [Step<TenantRefusal | 'stale'>, Step<never>] {
  const versioned = { ...tenant, version: (over ?? 0) + 1 }
  const guard =
    over === undefined
      ? cond.notExists()
      : over === 0
        ? cond.and(cond.exists(), cond.or(cond.notExists('version'), cond.eq('version', 0)))
        : cond.eq('version', over)
  return [
    {
      item: { Put: { Item: tenantEntity.item('bySlug', versioned), ...conditionExpression(guard) } },
      refusal: over === undefined ? 'slug_taken' : 'stale',
    },
    { item: { Put: { Item: tenantEntity.item('byId', versioned) } } },
  ]
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
}: NewTenant): Step<TenantRefusal | 'stale'>[] {
  const put = (Item: Item): Step<never> => ({ item: { Put: { Item } } })
  const counters = { users_total: 0, users_active: 0, ...userCounterTotals(owner ? [owner] : []) }
  return [
    ...tenantSteps(tenant),
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

/**
 * The fields given (undefined ones stay) of an existing tenant, written to both of its items.
 * Decided from a consistent read and written over that version, once more if another change won.
 * @returns the tenant as changed; undefined when there is no such tenant
 */
export async function updateTenant(
  slug: string,
  changes: TenantChanges,
  now: string,
): Promise<Tenant | undefined> {
  return retryOnConflict(async () => {
    const item = await getItem(keys.tenantBySlug(slug), { ConsistentRead: true })
    if (!item) return undefined
    const { tenant, version } = toVersionedTenant(item)
    const defined = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined))
    const changed: Tenant = { ...tenant, ...defined, updatedAt: now }
    await commit(tenantSteps(changed, version))
    return changed
  })
}
