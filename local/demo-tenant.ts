/** First start: a demo tenant on the Growth plan (API access) with an admin key. */
import { createApiKey, createTenant, findTenant } from '../shared/services/tenants/tenants-service.ts'

export const DEMO_SLUG = 'demo'

export async function ensureDemoTenant(): Promise<{ slug: string; key: string } | undefined> {
  if (await findTenant(DEMO_SLUG)) return undefined
  const tenant = await createTenant({ slug: DEMO_SLUG, plan: 'growth', kind: 'demo', name: 'Demo' })
  const { key } = await createApiKey(tenant, ['read', 'write', 'admin'])
  return { slug: tenant.slug, key }
}
