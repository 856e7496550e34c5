/**
 * The tenant's monthly API usage: every key-authenticated request counts against the month's cap,
 * and the request whose count reaches 80% or 100% of it records the usage alert for the owners and
 * admins, once per month and threshold (shared/domain/plans/usage-alerts.ts).
 */
import { newNotification } from '../domain/events.ts'
import { monthlyApiCap } from '../domain/plans/entitlements.ts'
import { alertCrossedBy } from '../domain/plans/usage-alerts.ts'
import type { Tenant } from '../domain/tenants/tenant.ts'
import { consumeMonthlyUsage, recordUsageAlert } from '../store/rate-limits-store.ts'

/**
 * Counts one request at `nowMs` against the tenant's month.
 * @returns false when the month's cap is reached: the request is not admitted
 */
export async function meterApiRequest(tenant: Tenant, nowMs: number): Promise<boolean> {
  const at = new Date(nowMs).toISOString()
  const month = at.slice(0, 7)
  const cap = monthlyApiCap(tenant.plan, tenant.monthlyApiCap)
  const used = await consumeMonthlyUsage(tenant, month, cap)
  if (used === undefined) return false
  const percent = alertCrossedBy(used, cap)
  if (percent !== undefined) {
    const alert = newNotification('usage_alert', null, { month, percent, used, cap }, at)
    await recordUsageAlert(tenant, { month, percent }, { notifications: [alert] })
  }
  return true
}
