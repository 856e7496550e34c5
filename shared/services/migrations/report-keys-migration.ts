/**
 * `2026-11-report-keys`: enrollments, users and courses written before the report keys and
 * aggregates (decisions 0018, 0022-0026) get them, as the current writers would have written them
 * (shared/store/migrations/report-backfill.ts; exactly once per item).
 */
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import type { Item } from '../../store/core/db.ts'
import {
  backfillCourseTitle,
  backfillEnrollment,
  backfillUser,
  inTenantPartition,
  reportBackfillFilter,
  tenantIdOf,
} from '../../store/migrations/report-backfill.ts'
import { findTenantById } from '../../store/tenants/tenants-store.ts'
import { scanMigration, type ItemOutcome } from './scan-migration.ts'

/** Tenants are never deleted: each is read once per run of the process. */
const tenants = new Map<string, Promise<TenantContext | undefined>>()

function tenantOf(id: string): Promise<TenantContext | undefined> {
  let found = tenants.get(id)
  if (!found) {
    found = findTenantById(id)
    tenants.set(id, found)
    // A failed read is not kept: the next item of the tenant reads it again.
    found.catch(() => tenants.delete(id))
  }
  return found
}

async function backfill(item: Item): Promise<ItemOutcome> {
  const tenantId = tenantIdOf(item)
  const tenant = tenantId === undefined ? undefined : await tenantOf(tenantId)
  if (!tenant) return 'skipped'
  if (item.type === 'enrollment') return backfillEnrollment(tenant, item)
  if (item.type === 'user') return backfillUser(tenant, item)
  return backfillCourseTitle(tenant, item)
}

export const reportKeysMigration = scanMigration({
  id: '2026-11-report-keys',
  description:
    'Report index keys and aggregates (course tallies, day tallies, hour and expiry histograms, latest activity) for enrollments, users and course titles written before decisions 0018 and 0022-0026',
  filter: reportBackfillFilter,
  ofTenant: inTenantPartition,
  apply: backfill,
})
