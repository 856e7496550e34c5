/**
 * First start: a demo tenant on the Growth plan (API access) with an admin key and, unless turned
 * off, its sample data (local/demo-data.ts). Only the start that creates the tenant seeds it, so a
 * restart on the same data dir adds nothing.
 */
import { createApiKey, createTenant, findTenant } from '../shared/services/tenants/tenants-service.ts'
import { seedDemoData, type DemoDataSummary } from './demo-data.ts'

export const DEMO_SLUG = 'demo'

export interface DemoTenant {
  readonly slug: string
  readonly key: string
  /** What the sample data holds; absent when it was turned off. */
  readonly sampleData?: DemoDataSummary
}

export async function ensureDemoTenant(options: { sampleData: boolean }): Promise<DemoTenant | undefined> {
  if (await findTenant(DEMO_SLUG)) return undefined
  const tenant = await createTenant({ slug: DEMO_SLUG, plan: 'growth', kind: 'demo', name: 'Demo' })
  const { key } = await createApiKey(tenant, ['read', 'write', 'admin'])
  if (!options.sampleData) return { slug: tenant.slug, key }
  return { slug: tenant.slug, key, sampleData: await seedDemoData(tenant) }
}
