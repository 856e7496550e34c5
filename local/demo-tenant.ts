/** First start: a demo tenant on the Growth plan (API access) with an admin key. */
import { createApiKey, createTenant } from '../shared/services/tenants/tenants-service.ts'
import { getTenantBySlug } from '../shared/store/tenants/tenants-store.ts'

export const DEMO_SLUG = 'demo'

export async function ensureDemoTenant(): Promise<{ slug: string; key: string } | undefined> {
  if (await getTenantBySlug(DEMO_SLUG)) return undefined
  const tenant = await createTenant({ slug: DEMO_SLUG, plan: 'growth', kind: 'demo', name: 'Demo' })
  const { key } = await createApiKey(tenant, ['read', 'write', 'admin'])
  return { slug: tenant.slug, key }
}
