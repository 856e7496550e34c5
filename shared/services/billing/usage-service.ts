/**
 * The tenant's monthly API usage: every key-authenticated request counts against the month's cap.
 * The 80% / 100% alerts are sent by the usage-alerts job (shared/services/billing/usage-alerts-job.ts), out
 * of the request path. GET /api/v1/usage reads no counter: it tells the counts its own request got
 * from the minute window and from this metering (decision 0037).
 */
import { monthlyApiCap } from '../../domain/plans/entitlements.ts'
import { calendarMonth, secondsToReset } from '../../domain/plans/rate-limit-fields.ts'
import type { Tenant } from '../../domain/tenants/tenant.ts'
import { consumeMonthlyUsage } from '../../store/tenants/rate-limits-store.ts'
import type { WindowCount } from '../tenants/rate-limits-service.ts'

/**
 * Counts one request at `nowMs` against the tenant's month.
 * @returns the month's count including this request; undefined when the month's cap is reached
 * (the request is not admitted)
 */
export async function meterApiRequest(tenant: Tenant, nowMs: number): Promise<number | undefined> {
  const at = new Date(nowMs).toISOString()
  const month = at.slice(0, 7)
  const cap = monthlyApiCap(tenant.plan, tenant.monthlyApiCap)
  return consumeMonthlyUsage(tenant, month, cap)
}

/** What one request was counted as: its key's minute window and its tenant's month. */
export interface CountedRequest {
  readonly key: { readonly id: string; readonly prefix: string }
  readonly minute: WindowCount
  /** When the minute was counted: the instant the answer's figures are told at. */
  readonly atMs: number
  readonly monthCount: number
}

export interface Usage {
  readonly periodStart: string
  readonly periodEnd: string
  readonly requests: number
  readonly monthlyCap: number | null
  readonly remaining: number | null
  readonly key: {
    readonly id: string
    readonly prefix: string
    readonly minute: { readonly limit: number; readonly remaining: number; readonly resetSeconds: number }
  }
}

/** The calling key's minute and its tenant's month, as the request that asks was counted in them. */
export function usageOf(tenant: Tenant, counted: CountedRequest): Usage {
  const month = calendarMonth(counted.atMs)
  const cap = monthlyApiCap(tenant.plan, tenant.monthlyApiCap)
  return {
    periodStart: month.start,
    periodEnd: month.end,
    requests: counted.monthCount,
    monthlyCap: cap,
    remaining: cap === null ? null : Math.max(0, cap - counted.monthCount),
    key: {
      ...counted.key,
      minute: {
        limit: counted.minute.limit,
        remaining: counted.minute.remaining,
        resetSeconds: secondsToReset(counted.minute.reset, counted.atMs),
      },
    },
  }
}
