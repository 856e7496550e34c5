/**
 * The user activity report's reads of the latest-activity aggregate (decision 0024): the users by
 * latest activity (act1 `A…` entries), the histogram of users by the day of theirs, and one user's
 * entries (act2) for their row.
 */
import type { TenantContext } from '../domain/tenants/tenant.ts'
import {
  isUserEntry,
  latestBetweenParams,
  latestTopParams,
  toEnrollmentActivity,
  toLatestEntry,
  toUserActivity,
  userEntriesParams,
  type EnrollmentActivity,
  type LatestEntry,
} from './activity-index.ts'
import { queryAll, queryCount, queryUpTo } from './db.ts'
import { cond, queryExpression } from './expression.ts'
import { keys } from './keys.ts'

/** The entries a Limit read of the index asks for at most (later pages follow its cursor). */
const MAX_LIMIT = 1000

/** The `want` users with the most recent latest activity, most recent first. */
export async function usersByLatest(tenant: TenantContext, want: number): Promise<LatestEntry[]> {
  const items = await queryUpTo(latestTopParams(tenant, Math.min(MAX_LIMIT, want)), want)
  return items.map(toLatestEntry)
}

/** How many users' latest activity falls between two instants (milliseconds, both included). */
export const countLatestBetween = (tenant: TenantContext, from: number, to: number): Promise<number> =>
  queryCount(latestBetweenParams(tenant, from, to))

export function latestMonthsParams(tenant: TenantContext, fromMonth: string) {
  const { pk, sk } = keys.activityLatestMonth(tenant, fromMonth)
  return queryExpression({
    key: cond.and(cond.eq('pk', pk), cond.between('sk', sk, keys.activityLatestMonth(tenant, '~').sk)),
  })
}

/** Users by the day of their latest activity (`yyyy-mm-dd` → count), from `fromMonth` on. */
export async function latestDays(tenant: TenantContext, fromMonth: string): Promise<Record<string, number>> {
  const days: Record<string, number> = {}
  for (const item of await queryAll(latestMonthsParams(tenant, fromMonth))) {
    const month = typeof item.month === 'string' ? item.month : undefined
    if (!month) continue
    for (const [name, n] of Object.entries(item)) {
      if (/^d\d\d$/.test(name) && typeof n === 'number') days[`${month}-${name.slice(1)}`] = n
    }
  }
  return days
}

/** One user's enrollments last active at or after `since`, and their last sign-in. */
export async function userActivitySince(
  tenant: TenantContext,
  userId: string,
  since: number,
): Promise<{ enrollments: EnrollmentActivity[]; lastLoginAt: string | null }> {
  const items = await queryAll(userEntriesParams(tenant, userId, since))
  let lastLoginAt: string | null = null
  const enrollments: EnrollmentActivity[] = []
  for (const item of items) {
    if (isUserEntry(String(item.a1))) lastLoginAt = toUserActivity(item).lastLoginAt
    else enrollments.push(toEnrollmentActivity(item))
  }
  return { enrollments, lastLoginAt }
}
