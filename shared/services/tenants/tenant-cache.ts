/**
 * The one cache of tenants a warm container keeps, by slug (the Host names it: the API) and by id
 * (messages and outbox items carry ids: the workers), each lookup one read on a miss. A tenant read
 * either way serves both for LMS_TENANT_CACHE_MS, so plan or status changes apply within that
 * delay. A tenant not found is not kept: a tenant created a moment ago is found at once.
 */
import { config } from '../../config.ts'
import type { Tenant } from '../../domain/tenants/tenant.ts'
import { findTenantById, getTenantBySlug } from '../../store/tenants/tenants-store.ts'

interface Cached {
  readonly tenant: Tenant
  readonly until: number
}

const bySlug = new Map<string, Cached>()
const byId = new Map<string, Cached>()

function cached(map: Map<string, Cached>, key: string, now: number): Tenant | undefined {
  const hit = map.get(key)
  return hit && hit.until > now ? hit.tenant : undefined
}

function keep(tenant: Tenant | undefined, now: number): Tenant | undefined {
  if (tenant && config.tenantCacheMs > 0) {
    const entry = { tenant, until: now + config.tenantCacheMs }
    bySlug.set(tenant.slug, entry)
    byId.set(tenant.id, entry)
  }
  return tenant
}

export async function tenantBySlug(slug: string, now = Date.now()): Promise<Tenant | undefined> {
  return cached(bySlug, slug, now) ?? keep(await getTenantBySlug(slug), now)
}

export async function tenantById(id: string, now = Date.now()): Promise<Tenant | undefined> {
  return cached(byId, id, now) ?? keep(await findTenantById(id), now)
}
