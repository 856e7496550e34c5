/**
 * The tenant's monthly API usage: every key-authenticated request counts against the month's cap.
 * The 80% / 100% alerts are sent by the usage-alerts job (shared/services/billing/usage-alerts-job.ts), out
 * of the request path.
 */
import { monthlyApiCap } from '../../domain/plans/entitlements.ts'
import type { Tenant } from '../../domain/tenants/tenant.ts'
import { consumeMonthlyUsage } from '../../store/tenants/rate-limits-store.ts'

/**
 * Counts one request at `nowMs` against the tenant's month.
 * @returns false when the month's cap is reached: the request is not admitted
 */
export async function meterApiRequest(tenant: Tenant, nowMs: number): Promise<boolean> {
  const at = new Date(nowMs).toISOString()
  const month = at.slice(0, 7)
  const cap = monthlyApiCap(tenant.plan, tenant.monthlyApiCap)
  const used = await consumeMonthlyUsage(tenant, month, cap)
  return used !== undefined
}
