/**
 * `2026-11-scores-linked`: enrollments whose AGS link was written before they said so get
 * `scores_linked` (decision 0050, amendment), so the relay reads their link again.
 */
import { agsLinkFilter, linkedEnrollmentOf, markEnrollmentLinked } from '../../store/lti/lti-ags-store.ts'
import { inTenantPartition } from '../../store/migrations/report-backfill.ts'
import { findTenantById } from '../../store/tenants/tenants-store.ts'
import { scanMigration } from './scan-migration.ts'

export const scoresLinkedMigration = scanMigration({
  id: '2026-11-scores-linked',
  description: 'Enrollments with an AGS link written before decision 0050 amendment say they have one',
  filter: agsLinkFilter,
  ofTenant: inTenantPartition,
  apply: async (item) => {
    const linked = linkedEnrollmentOf(item)
    const tenant = linked && (await findTenantById(linked.tenantId))
    if (!linked || !tenant) return 'skipped'
    // Setting it again is harmless: it is only ever true.
    return (await markEnrollmentLinked(tenant, linked.enrollmentId)) ? 'changed' : 'skipped'
  },
})
