/**
 * `2026-11-skill-summaries`: the skills summaries of people whose holdings and held skills were
 * written before decision 0032, tenant by tenant through the tenant registry (a page is `pageSize`
 * tenants), each by `backfillSkillSummaries`, which writes nothing for a person already right.
 */
import { findTenantById, getTenantBySlug } from '../../store/tenants/tenants-store.ts'
import { registeredTenantsPage } from '../../store/tenants/tenant-registry.ts'
import { backfillSkillSummaries } from '../skills/skill-summaries-service.ts'
import type { Migration } from './migration.ts'

export const skillSummariesMigration: Migration = {
  id: '2026-11-skill-summaries',
  description: "Each tenant's skills summaries built from its holdings and held skills (decision 0032)",
  page: async (cursor, { pageSize, tenantId }) => {
    if (tenantId !== undefined) {
      const tenant = await findTenantById(tenantId)
      const written = tenant ? (await backfillSkillSummaries(tenant)).written : 0
      return { counts: { scanned: 1, changed: written, skipped: tenant ? 0 : 1 }, next: undefined }
    }
    const page = await registeredTenantsPage(cursor, pageSize)
    let changed = 0
    let skipped = 0
    // One tenant at a time: a backfill already reads its tenant in 16 ranges side by side.
    for (const entry of page.tenants) {
      const tenant = await getTenantBySlug(entry.slug)
      if (!tenant) {
        skipped++
        continue
      }
      changed += (await backfillSkillSummaries(tenant)).written
    }
    return { counts: { scanned: page.tenants.length, changed, skipped }, next: page.next }
  },
}
