/**
 * User activity over a period (document 001, "Reports" rules): the last 30 days by default; a user
 * is active when they logged in or started or completed an enrollment inside the period;
 * total_time_spent_seconds sums course time of the enrollments last active inside the period;
 * total_logins is always null. Bounds are inclusive.
 */
import type { Enrollment } from '../enrollments/enrollment.ts'
import { ValidationError } from '../errors.ts'
import type { UserActivityRow } from './rows.ts'

export const DEFAULT_ACTIVITY_DAYS = 30
const DAY_MS = 86_400_000

export interface Period {
  readonly start: string
  readonly end: string
}

/**
 * The period of `active_after` / `active_before`: the end defaults to now, the start to 30 days
 * before the end.
 * @throws ValidationError naming active_after when the start is after the end
 */
export function activityPeriod(now: string, after?: string, before?: string): Period {
  const end = before ?? now
  const start = after ?? new Date(Date.parse(end) - DEFAULT_ACTIVITY_DAYS * DAY_MS).toISOString()
  if (Date.parse(start) > Date.parse(end)) {
    throw new ValidationError('active_after', 'active_after must not be after active_before')
  }
  return { start, end }
}

export function inPeriod(at: string | null, p: Period): boolean {
  if (at === null) return false
  const t = Date.parse(at)
  return t >= Date.parse(p.start) && t <= Date.parse(p.end)
}

type Activity = Pick<Enrollment, 'startedAt' | 'completedAt' | 'lastActivityAt' | 'timeSpentSeconds'>

export function activityRow(
  userId: string,
  lastLoginAt: string | null,
  enrollments: readonly Activity[],
  p: Period,
): UserActivityRow {
  return {
    user_id: userId,
    last_login_at: lastLoginAt,
    total_logins: null,
    total_time_spent_seconds: enrollments
      .filter((e) => inPeriod(e.lastActivityAt, p))
      .reduce((sum, e) => sum + e.timeSpentSeconds, 0),
    courses_started: enrollments.filter((e) => inPeriod(e.startedAt, p)).length,
    courses_completed: enrollments.filter((e) => inPeriod(e.completedAt, p)).length,
    period_start: p.start,
    period_end: p.end,
  }
}

/** Logged in, or started or completed an enrollment, inside the period. */
export const isActive = (row: UserActivityRow): boolean =>
  inPeriod(row.last_login_at, { start: row.period_start, end: row.period_end }) ||
  row.courses_started > 0 ||
  row.courses_completed > 0

/**
 * The users active in the period, from the period's sign-ins and the enrollments last active since
 * its start: the ids alone decide it (a user absent from the sign-ins did not sign in inside it).
 */
export function activeUserIds(
  signedIn: readonly { readonly id: string; readonly lastLoginAt: string | null }[],
  recent: readonly Pick<Enrollment, 'userId' | 'startedAt' | 'completedAt'>[],
  p: Period,
): Set<string> {
  const ids = new Set(signedIn.filter((u) => inPeriod(u.lastLoginAt, p)).map((u) => u.id))
  for (const e of recent) if (inPeriod(e.startedAt, p) || inPeriod(e.completedAt, p)) ids.add(e.userId)
  return ids
}

/**
 * The latest instant inside the period that makes the user active (a sign-in, a start or a
 * completion), in milliseconds, or null when none does. Rows are ordered by it (decision 0024).
 */
export function latestInPeriod(
  lastLoginAt: string | null,
  enrollments: readonly Pick<Enrollment, 'startedAt' | 'completedAt'>[],
  p: Period,
): number | null {
  const ats = [lastLoginAt, ...enrollments.flatMap((e) => [e.startedAt, e.completedAt])]
  const inside = ats.filter((at) => inPeriod(at, p)).map((at) => Date.parse(at as string))
  return inside.length === 0 ? null : Math.max(...inside)
}

/**
 * The report's order: most recent activity in the period first, ties by user id descending (as
 * the latest-activity index reads backwards); users without activity in it last, by id descending.
 */
export function byRecentActivity(
  a: { readonly id: string; readonly latest: number | null },
  b: { readonly id: string; readonly latest: number | null },
): number {
  const la = a.latest ?? -Infinity
  const lb = b.latest ?? -Infinity
  if (la !== lb) return lb - la
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0
}
