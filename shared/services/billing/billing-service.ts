/**
 * Billing metrics for the billing orchestrator: a tenant's billable quantity and provisioned
 * accounts, read from two items (the tenant and its counters) whatever the tenant's size.
 */
import {
  isNeverBilled,
  neverBilledLabel,
  periodLoginCounter,
  periodStartAt,
} from '../../domain/billing/billing-period.ts'
import { ConflictError, NotFoundError } from '../../domain/errors.ts'
import type { TenantStatus } from '../../domain/tenants/tenant.ts'
import { getCounters } from '../../store/tenants/counters.ts'
import { findTenantById } from '../../store/tenants/tenants-store.ts'

export interface BillingMetrics {
  readonly tenantId: string
  readonly slug: string
  readonly status: TenantStatus
  readonly activeUsersInPeriod: number
  readonly licensedUsers: number
  readonly periodStart: string
  readonly asOf: string
}

/**
 * @throws NotFoundError for no such tenant
 * @throws ConflictError naming the kind of a tenant that is never billed
 */
export async function billingMetrics(tenantId: string, asOf: string): Promise<BillingMetrics> {
  const tenant = await findTenantById(tenantId)
  if (!tenant) throw new NotFoundError('tenant')
  if (isNeverBilled(tenant.kind)) {
    throw new ConflictError(
      `billing.${tenant.kind}_tenant`,
      `The tenant is ${neverBilledLabel[tenant.kind]} (kind ${tenant.kind}) and is never billed`,
    )
  }
  const counters = await getCounters(tenant)
  const periodStart = periodStartAt(tenant.periodStart, asOf)
  return {
    tenantId: tenant.id,
    slug: tenant.slug,
    status: tenant.status,
    activeUsersInPeriod: counters[periodLoginCounter(periodStart)] ?? 0,
    licensedUsers: counters.users_active ?? 0,
    periodStart,
    asOf,
  }
}
