/**
 * The user activity report's reads of the latest-activity aggregate (decision 0024): the users by
 * latest activity (act1 `A…` entries), the histogram of users by the day of theirs, and one user's
 * entries (act2) for their row.
 */
import type { TenantContext } from '../../domain/tenants/tenant.ts'
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
import { query, queryAll, queryCount, queryUpTo } from '../core/db.ts'
import type { UserType } from '../../domain/users/user.ts'
import { cond, queryExpression } from '../core/expression.ts'
import { keys } from '../core/keys.ts'

/** The entries a Limit read of the index asks for at most (later pages follow its cursor). */
const MAX_LIMIT = 1000

/** The `want` users with the most recent latest activity, most recent first. */
export async function usersByLatest(tenant: TenantContext, want: number): Promise<LatestEntry[]> {
  const items = await queryUpTo(latestTopParams(tenant, Math.min(MAX_LIMIT, want)), want)
  return items.map(toLatestEntry)
}

/**
 * The `want` users of one type with the most recent latest activity at or after `since`, most
 * recent first. The entries carry the type, and an index's own keys cannot be filtered by
 * DynamoDB: pages of every user's entries are read (each sized by the type's `share` of the
 * users) and kept by type, until enough are found or the entries fall before `since`.
 */
export async function usersOfTypeByLatest(
  tenant: TenantContext,
  type: UserType,
  want: number,
  since: number,
  share: number,
): Promise<LatestEntry[]> {
  const found: LatestEntry[] = []
  const limit = Math.min(MAX_LIMIT, Math.ceil((want * 12) / (Math.max(share, 0.01) * 10)) + 10)
  let start: Record<string, unknown> | undefined
  do {
    const out = await query({
      ...latestTopParams(tenant, limit),
      ...(start ? { ExclusiveStartKey: start } : {}),
    })
    const entries = (out.Items ?? []).map(toLatestEntry)
    for (const e of entries) if (e.userType === type && found.length < want) found.push(e)
    const last = entries.at(-1)
    start =
      found.length >= want || (last !== undefined && last.latest < since) ? undefined : out.LastEvaluatedKey
  } while (start)
  return found
}

/** How many users (of a type) have their latest activity between two instants (ms, both included). */
export async function countLatestBetween(
  tenant: TenantContext,
  from: number,
  to: number,
  type?: UserType,
): Promise<number> {
  if (type === undefined) return queryCount(latestBetweenParams(tenant, from, to))
  const entries = (await queryAll(latestBetweenParams(tenant, from, to))).map(toLatestEntry)
  return entries.filter((e) => e.userType === type).length
}

export function latestMonthsParams(tenant: TenantContext, fromMonth: string) {
  const { pk, sk } = keys.activityLatestMonth(tenant, fromMonth)
  return queryExpression({
    key: cond.and(cond.eq('pk', pk), cond.between('sk', sk, keys.activityLatestMonth(tenant, '~').sk)),
  })
}

/** Users (of a type) by the day of their latest activity (`yyyy-mm-dd` → count), from `fromMonth` on. */
export async function latestDays(
  tenant: TenantContext,
  fromMonth: string,
  type?: UserType,
): Promise<Record<string, number>> {
  const days: Record<string, number> = {}
  const attribute = type === undefined ? /^d(\d\d)$/ : new RegExp(`^d(\\d\\d)_${type}$`)
  for (const item of await queryAll(latestMonthsParams(tenant, fromMonth))) {
    const month = typeof item.month === 'string' ? item.month : undefined
    if (!month) continue
    for (const [name, n] of Object.entries(item)) {
      const m = attribute.exec(name)
      if (m && typeof n === 'number') days[`${month}-${m[1]}`] = n
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
