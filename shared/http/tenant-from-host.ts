/**
 * Resolves the tenant from the Host (`<slug>.<service_host>`). A tenant record may be reused for a
 * few seconds (LMS_TENANT_CACHE_MS) by a warm container: plan or status changes apply within that
 * delay. Unknown hosts and tenants answer 404.
 */
import { config } from '../config.ts'
import { NotFoundError } from '../domain/errors.ts'
import type { Tenant } from '../domain/tenants/tenant.ts'
import { requireTenant } from '../services/tenants/tenants-service.ts'
import type { HttpEvent, MiddyRequest } from './context.ts'

const cache = new Map<string, { tenant: Tenant; until: number }>()

export function slugFromHost(host: string | undefined, serviceHost: string): string | undefined {
  if (!host) return undefined
  const name = host.toLowerCase().replace(/:\d+$/, '').replace(/\.$/, '')
  const suffix = `.${serviceHost}`
  if (!name.endsWith(suffix)) return undefined
  const slug = name.slice(0, -suffix.length)
  return slug && !slug.includes('.') ? slug : undefined
}

function hostOf(event: HttpEvent): string | undefined {
  return event.headers?.host ?? event.requestContext?.domainName
}

export async function resolveTenant(event: HttpEvent): Promise<Tenant> {
  const slug = slugFromHost(hostOf(event), config.serviceHost)
  if (!slug) throw new NotFoundError('tenant')
  const now = Date.now()
  const hit = cache.get(slug)
  if (hit && hit.until > now) return hit.tenant
  const tenant = await requireTenant(slug)
  if (config.tenantCacheMs > 0) cache.set(slug, { tenant, until: now + config.tenantCacheMs })
  return tenant
}

export function tenantFromHost() {
  return {
    before: async function tenantFromHostBefore(request: MiddyRequest): Promise<void> {
      request.context.lms.tenant = await resolveTenant(request.event)
    },
  }
}
