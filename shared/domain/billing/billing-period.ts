/**
 * Billing periods and the billable quantity. The billing orchestrator reports each tenant's current
 * subscription period start; without one the period is the calendar month. A person is billable in
 * a period once they sign in during it, so each user records the period of their last sign-in and
 * the tenant's counters keep, per period, how many active people signed in during it: the billing
 * route reads one number, whatever the size of the tenant.
 */
import type { TenantKind } from '../tenants/tenant.ts'

/** The first instant of the calendar month of `at` (UTC). */
export function firstOfMonth(at: string): string {
  const d = new Date(at)
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1)).toISOString()
}

/**
 * The start of the period `at` falls in: the reported period start when `at` is inside it, else the
 * calendar month (no period reported, or an action placed before the reported period).
 */
export function periodStartAt(reportedStart: string | null, at: string): string {
  if (reportedStart !== null && Date.parse(reportedStart) <= Date.parse(at))
    return new Date(reportedStart).toISOString()
  return firstOfMonth(at)
}

/**
 * The counter of people who signed in during the period starting at `periodStart`, named by the
 * instant in basic ISO 8601 (`period_logins_20261101T000000000Z`): no dot, which would read as a path.
 */
export function periodLoginCounter(periodStart: string): string {
  return `period_logins_${new Date(periodStart).toISOString().replace(/[-:.]/g, '')}`
}

/** Kinds the orchestrator never bills: asking for their metrics is a mistake worth naming. */
export function isNeverBilled(kind: TenantKind): kind is Exclude<TenantKind, 'customer'> {
  return kind !== 'customer'
}

export const neverBilledLabel: Record<Exclude<TenantKind, 'customer'>, string> = {
  demo: 'a demo tenant',
  sandbox: 'a sandbox tenant',
  training: 'a platform training tenant',
}
