/**
 * The usage-alerts job: for each registered tenant, the month's count against its monthly cap;
 * each threshold reached (80%, 100%) records one `usage_alert` notification for the tenant's
 * owners and admins (userId null: the recipients are resolved when it is sent), guarded by a marker
 * per tenant, month and threshold, so later runs and concurrent ones record nothing more.
 */
import { mapLimit } from '../../concurrency.ts'
import { newNotification } from '../../domain/events.ts'
import { monthlyApiCap } from '../../domain/plans/entitlements.ts'
import { thresholdsReached } from '../../domain/plans/usage-alerts.ts'
import { monthlyUsageOf } from '../../store/tenants/monthly-usage-reads.ts'
import { recordUsageAlert } from '../../store/tenants/rate-limits-store.ts'
import { registeredTenants } from '../../store/tenants/tenant-registry.ts'
import { getTenantsBySlugs } from '../../store/tenants/tenants-store.ts'

const TENANTS_IN_PARALLEL = 8

export async function runUsageAlerts(at: string): Promise<{ sent: number }> {
  const month = at.slice(0, 7)
  let sent = 0
  for await (const page of registeredTenants()) {
    const tenants = await getTenantsBySlugs(page.map((t) => t.slug))
    const usage = await monthlyUsageOf(tenants, month)
    await mapLimit(tenants, TENANTS_IN_PARALLEL, async (tenant) => {
      const cap = monthlyApiCap(tenant.plan, tenant.monthlyApiCap)
      const used = usage.get(tenant.id) ?? 0
      for (const percent of thresholdsReached(used, cap)) {
        const alert = newNotification('usage_alert', null, { month, percent, used, cap }, at)
        if (await recordUsageAlert(tenant, { month, percent }, { notifications: [alert] })) sent += 1
      }
    })
  }
  return { sent }
}
