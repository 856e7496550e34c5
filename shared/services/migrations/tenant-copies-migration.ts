/** `2026-11-tenant-id-copies`: legacy `TENANTID#<id>` pointers become full copies of the tenant (decision 0028). */
import {
  legacyTenantPointerFilter,
  replaceLegacyTenantPointer,
  tenantIdItemOf,
  tenantIdOfIdItem,
} from '../../store/tenants/tenants-store.ts'
import { scanMigration } from './scan-migration.ts'

export const tenantCopiesMigration = scanMigration({
  id: '2026-11-tenant-id-copies',
  description:
    'Tenant id items still holding the legacy pointer to the slug become full copies of the tenant (decision 0028)',
  filter: legacyTenantPointerFilter,
  ofTenant: tenantIdItemOf,
  apply: async (item) => {
    const id = tenantIdOfIdItem(item)
    if (id === undefined) return 'skipped'
    return (await replaceLegacyTenantPointer(id)) ? 'changed' : 'unchanged'
  },
})
