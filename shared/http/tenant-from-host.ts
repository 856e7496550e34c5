/**
 * Resolves the tenant from the Host (`<slug>.<service_host>`), through the container's tenant
 * cache (shared/services/tenants/tenant-cache.ts). Unknown hosts and tenants answer 404.
 */
import { config } from '../config.ts'
import { NotFoundError } from '../domain/errors.ts'
import type { Tenant } from '../domain/tenants/tenant.ts'
import { tenantBySlug } from '../services/tenants/tenant-cache.ts'
import type { HttpEvent, MiddyRequest } from './context.ts'

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
  const tenant = await tenantBySlug(slug)
  if (!tenant) throw new NotFoundError('tenant')
  return tenant
}

export function tenantFromHost() {
  return {
    before: async function tenantFromHostBefore(request: MiddyRequest): Promise<void> {
      request.context.lms.tenant = await resolveTenant(request.event)
    },
  }
}
