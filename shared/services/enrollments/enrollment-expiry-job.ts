/**
 * The enrollment-expiry job: for each registered tenant, one Query of its access-expiry index
 * (only active enrollments with an end of access, soonest first, up to `at`), then each candidate
 * expired through the engine's conditional write (re-read, so one completed or dropped since is
 * left alone). Freed seats go to the waitlist. Running it twice for the same `at` expires nothing
 * more: an expired enrollment has left the index.
 */
import { mapLimit } from '../../concurrency.ts'
import { errorFields, log } from '../../log.ts'
import { accessEndedBy } from '../../store/enrollments/enrollment-queues.ts'
import { registeredTenants } from '../../store/tenants/tenant-registry.ts'
import { getTenantsBySlugs } from '../../store/tenants/tenants-store.ts'
import { expireEnrollment } from './enrollment-lifecycle.ts'

const TENANTS_IN_PARALLEL = 8

export async function runEnrollmentExpiry(at: string): Promise<{ expired: number }> {
  let expired = 0
  for await (const page of registeredTenants()) {
    const tenants = await getTenantsBySlugs(page.map((t) => t.slug))
    await mapLimit(tenants, TENANTS_IN_PARALLEL, async (tenant) => {
      for (const id of await accessEndedBy(tenant, at)) {
        try {
          if (await expireEnrollment(tenant, id, at)) expired += 1
        } catch (err) {
          // One enrollment that cannot be expired now (a conflict, a malformed item) must not
          // hold up the others; it is still in the index, so the next run takes it again.
          log('error', 'enrollment expiry failed', {
            tenantId: tenant.id,
            enrollmentId: id,
            ...errorFields(err),
          })
        }
      }
    })
  }
  return { expired }
}
