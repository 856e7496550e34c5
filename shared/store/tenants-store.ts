import { config } from '../config.ts'
import type { PlanId } from '../domain/errors.ts'
import type { Tenant, TenantContext, TenantKind, TenantStatus } from '../domain/tenants/tenant.ts'
import { getItem, transact, TransactionConditionFailed, updateItem, type Item } from './db.ts'
import { keys } from './keys.ts'

function toTenant(item: Item): Tenant {
  return {
    id: item.id as string,
    slug: item.slug as string,
    name: item.name as string,
    plan: item.plan as PlanId,
    kind: item.kind as TenantKind,
    status: item.status as TenantStatus,
    skillsPlanning: item.skills_planning === true,
    monthlyApiCap: (item.monthly_api_cap as number | null | undefined) ?? null,
    createdAt: item.created_at as string,
    updatedAt: item.updated_at as string,
  }
}

export async function getTenantBySlug(slug: string): Promise<Tenant | undefined> {
  const item = await getItem(keys.tenantBySlug(slug))
  return item ? toTenant(item) : undefined
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
  const pointer = await getItem(keys.tenantIdToSlug(id))
  const tenant = pointer ? await getTenantBySlug(pointer.slug as string) : undefined
  if (tenant && config.tenantCacheMs > 0) byId.set(id, { tenant, until: now + config.tenantCacheMs })
  return tenant
}

export class SlugTakenError extends Error {}

/** Creates the tenant, its id → slug pointer, its counters and seeded records, all or nothing. */
/** The tenant with its seed items; `counters` start the counters item (a first user's share). */
export async function insertTenant(
  tenant: Tenant,
  seeds: Item[],
  counters: Record<string, number> = {},
): Promise<void> {
  const ctx: TenantContext = { id: tenant.id, plan: tenant.plan }
  try {
    await transact([
      {
        Put: {
          Item: {
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
            created_at: tenant.createdAt,
            updated_at: tenant.updatedAt,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      { Put: { Item: { ...keys.tenantIdToSlug(tenant.id), slug: tenant.slug } } },
      {
        Put: {
          Item: { ...keys.counters(ctx), users_total: 0, users_active: 0, ...counters },
        },
      },
      ...seeds.map((item) => ({ Put: { Item: item } })),
    ])
  } catch (err) {
    if (err instanceof TransactionConditionFailed && err.failedAt(0)) throw new SlugTakenError()
    throw err
  }
}

export interface TenantChanges {
  plan?: PlanId
  status?: TenantStatus
  skillsPlanning?: boolean
  monthlyApiCap?: number | null
  name?: string
}

export async function updateTenant(
  slug: string,
  changes: TenantChanges,
  now: string,
): Promise<Tenant | undefined> {
  const sets: string[] = ['updated_at = :now']
  const names: Record<string, string> = {}
  const values: Record<string, unknown> = { ':now': now }
  const fields: [keyof TenantChanges, string][] = [
    ['plan', 'plan'],
    ['status', 'status'],
    ['skillsPlanning', 'skills_planning'],
    ['monthlyApiCap', 'monthly_api_cap'],
    ['name', 'name'],
  ]
  for (const [field, attr] of fields) {
    if (changes[field] === undefined) continue
    names[`#${field}`] = attr
    sets.push(`#${field} = :${field}`)
    values[`:${field}`] = changes[field]
  }
  try {
    const item = await updateItem({
      Key: keys.tenantBySlug(slug),
      UpdateExpression: `SET ${sets.join(', ')}`,
      ConditionExpression: 'attribute_exists(pk)',
      ...(Object.keys(names).length ? { ExpressionAttributeNames: names } : {}),
      ExpressionAttributeValues: values,
      ReturnValues: 'ALL_NEW',
    })
    return item ? toTenant(item) : undefined
  } catch (err) {
    if (err instanceof Error && err.name === 'ConditionalCheckFailedException') return undefined
    throw err
  }
}
