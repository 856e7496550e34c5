/**
 * `act1`, the user activity report's index (docs/decisions/0022-user-activity-report.md): KEYS_ONLY,
 * keyed on the table's own `pk` (the tenant's partition: no extra partition attribute), sorted by
 * `a1`, a short value that carries everything the report reads, so an entry is ~150 bytes where the
 * enrollment it stands for is ~2 KB (rpt2, projection ALL, read the period's enrollments whole).
 *
 * - An enrollment with activity: `E<last activity>#<user id>#<started>#<completed>#<time spent>`,
 *   each instant as milliseconds in base 36, 9 digits wide (string order is time order until the
 *   year 5188), empty when null; the time spent in seconds, base 36. The enrollments last active
 *   since an instant are one key range.
 * - Every user: `U<user type>#<last sign-in, or !>#<user id>`, then `#<last sign-in as stored>`
 *   only when that is not the canonical ISO form (rows show it as stored). The sign-ins of a period
 *   are one key range per type; the users of a type one range; all users `U...`; ~140 bytes each.
 *
 * Instants are kept to the millisecond, as the report's rules compare them (Date.parse).
 */
import * as v from 'valibot'
import type { QueryCommandInput } from '@aws-sdk/lib-dynamodb'
import type { Enrollment } from '../../domain/enrollments/enrollment.ts'
import type { Period } from '../../domain/reports/user-activity.ts'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import { userTypes, type User, type UserType } from '../../domain/users/user.ts'
import type { Item } from '../core/db.ts'
import { decodeItem } from '../core/decode.ts'
import { MalformedItem } from '../core/store-errors.ts'
import { cond, queryExpression } from '../core/expression.ts'
import { keys } from '../core/keys.ts'

export const activityIndex = { name: 'act1', pk: 'pk', sk: 'a1' } as const
/**
 * `act2` (decision 0024, KEYS_ONLY): the same `a1` values partitioned by user (`a2pk`), so one
 * user's entries (their enrollments with activity, their sign-in) are one key range.
 */
export const userActivityIndex = { name: 'act2', pk: 'a2pk', sk: 'a1' } as const

const WIDTH = 9
const ENROLLMENT = 'E'
const USER = 'U'
/** A user's latest activity (UACT items): `A<latest>#<user id>`, the tenant's users by latest. */
const LATEST = 'A'
/** Sorts below every instant: a user who never signed in. */
const NEVER = '!'

/** Milliseconds as fixed-width base 36 (0 for anything before 1970). */
const msKey = (ms: number): string =>
  (Number.isFinite(ms) && ms > 0 ? ms : 0).toString(36).padStart(WIDTH, '0')

/** An instant as fixed-width base-36 milliseconds (0 for anything before 1970 or unreadable). */
export const instantKey = (at: string): string => msKey(Date.parse(at))

const instantOf = (key: string): string => new Date(parseInt(key, 36)).toISOString()

/** What the report reads of an enrollment with activity. */
export interface EnrollmentActivity {
  readonly userId: string
  readonly startedAt: string | null
  readonly completedAt: string | null
  readonly lastActivityAt: string
  readonly timeSpentSeconds: number
}

/** What the report reads of a user. */
export interface UserActivityEntry {
  readonly id: string
  readonly lastLoginAt: string | null
  readonly userType: UserType
}

type ActiveEnrollment = Pick<
  Enrollment,
  'userId' | 'startedAt' | 'completedAt' | 'lastActivityAt' | 'timeSpentSeconds'
>

/** The `a1` an enrollment item carries: none until it has activity. */
export function enrollmentActivityAttributes(e: ActiveEnrollment): Item {
  if (e.lastActivityAt === null) return {}
  const at = (x: string | null) => (x === null ? '' : instantKey(x))
  const parts = [
    e.userId,
    at(e.startedAt),
    at(e.completedAt),
    Math.max(0, Math.round(e.timeSpentSeconds)).toString(36),
  ]
  return { [activityIndex.sk]: `${ENROLLMENT}${instantKey(e.lastActivityAt)}#${parts.join('#')}` }
}

/** The `a1` every user item carries. */
export function userActivityAttributes(u: Pick<User, 'id' | 'lastLoginAt' | 'userType'>): Item {
  const login = u.lastLoginAt === null ? NEVER : instantKey(u.lastLoginAt)
  const canonical = u.lastLoginAt === null || instantOf(instantKey(u.lastLoginAt)) === u.lastLoginAt
  const stored = canonical ? '' : `#${u.lastLoginAt}`
  return { [activityIndex.sk]: `${USER}${u.userType}#${login}#${u.id}${stored}` }
}

const Entry = v.object({ pk: v.string(), sk: v.string(), a1: v.string() })

export function toEnrollmentActivity(item: Item): EnrollmentActivity {
  const { a1 } = decodeItem('enrollment activity', Entry, item)
  const [last, userId, started, completed, spent] = a1.slice(ENROLLMENT.length).split('#')
  if (
    !a1.startsWith(ENROLLMENT) ||
    !last ||
    !userId ||
    started === undefined ||
    completed === undefined ||
    !spent
  ) {
    throw new MalformedItem(
      'enrollment activity',
      { pk: item.pk, sk: item.sk },
      'a1: expected an enrollment entry',
    )
  }
  return {
    userId,
    startedAt: started === '' ? null : instantOf(started),
    completedAt: completed === '' ? null : instantOf(completed),
    lastActivityAt: instantOf(last),
    timeSpentSeconds: parseInt(spent, 36),
  }
}

export function toUserActivity(item: Item): UserActivityEntry {
  const { a1 } = decodeItem('user activity', Entry, item)
  const [type, login, id, ...stored] = a1.slice(USER.length).split('#')
  const userType = v.safeParse(v.picklist(userTypes), type)
  if (!a1.startsWith(USER) || !login || !id || !userType.success) {
    throw new MalformedItem('user activity', { pk: item.pk, sk: item.sk }, 'a1: expected a user entry')
  }
  const lastLoginAt = login === NEVER ? null : stored.length > 0 ? stored.join('#') : instantOf(login)
  return { id, lastLoginAt, userType: userType.output }
}

type Params = Omit<QueryCommandInput, 'TableName'>

const onIndex = (tenant: TenantContext, range: ReturnType<typeof cond.between>): Params => ({
  IndexName: activityIndex.name,
  ...queryExpression({ key: cond.and(cond.eq(activityIndex.pk, keys.tenantPartition(tenant)), range) }),
})

/** Enrollments last active at or after `since` (a superset of those started or completed since). */
export const enrollmentsActiveSinceParams = (tenant: TenantContext, since: string): Params =>
  onIndex(tenant, cond.between(activityIndex.sk, `${ENROLLMENT}${instantKey(since)}`, `${ENROLLMENT}~`))

/**
 * The same range cut into `slices` consecutive key ranges of equal time from `since` to `until`
 * (the last one open-ended), read side by side: a Query pages at 1 MB one call after another, so a
 * month of a large tenant's activity is several round trips in a row otherwise.
 */
export function enrollmentsActiveSinceSlices(
  tenant: TenantContext,
  since: string,
  until: string,
  slices: number,
): Params[] {
  const from = Date.parse(since)
  const span = Date.parse(until) - from
  if (!(span > slices) || slices <= 1) return [enrollmentsActiveSinceParams(tenant, since)]
  const at = (i: number) => new Date(from + Math.floor((span * i) / slices)).toISOString()
  return Array.from({ length: slices }, (_, i) => {
    const low = `${ENROLLMENT}${instantKey(at(i))}`
    const high =
      i === slices - 1
        ? `${ENROLLMENT}~`
        : `${ENROLLMENT}${instantKey(new Date(Date.parse(at(i + 1)) - 1).toISOString())}#~`
    return onIndex(tenant, cond.between(activityIndex.sk, low, high))
  })
}

/**
 * Users whose last sign-in falls inside the period (both ends included, to the millisecond): one
 * key range per user type, or the one type's.
 */
export const signInsParams = (tenant: TenantContext, p: Period, type?: UserType): Params[] =>
  (type ? [type] : userTypes).map((t) =>
    onIndex(
      tenant,
      cond.between(
        activityIndex.sk,
        `${USER}${t}#${instantKey(p.start)}`,
        `${USER}${t}#${instantKey(p.end)}#~`,
      ),
    ),
  )

/** Every user of one type. */
export const usersOfTypeParams = (tenant: TenantContext, type: UserType): Params =>
  onIndex(tenant, cond.between(activityIndex.sk, `${USER}${type}#`, `${USER}${type}#~`))

/** Every user of the tenant. */
export const allUsersActivityParams = (tenant: TenantContext): Params =>
  onIndex(tenant, cond.between(activityIndex.sk, USER, `${USER}~`))

/** Every user of the tenant as one key range per type, read side by side. */
export const allUsersByTypeParams = (tenant: TenantContext): Params[] =>
  userTypes.map((t) => usersOfTypeParams(tenant, t))

/** The act1 value of a user's latest activity item: `A<latest>#<user id>[#<user type>]`. */
export const latestEntryValue = (userId: string, latest: number, userType?: UserType): string =>
  `${LATEST}${msKey(latest)}#${userId}${userType === undefined ? '' : `#${userType}`}`

/** One entry of the users by latest activity. */
export interface LatestEntry {
  readonly userId: string
  readonly latest: number
  readonly userType: UserType | undefined
}

export function toLatestEntry(item: Item): LatestEntry {
  const { a1 } = decodeItem('latest activity', Entry, item)
  const [latest, userId, type] = a1.slice(LATEST.length).split('#')
  const userType = type === undefined ? undefined : v.safeParse(v.picklist(userTypes), type)
  if (!a1.startsWith(LATEST) || !latest || !userId || (userType !== undefined && !userType.success)) {
    throw new MalformedItem('latest activity', { pk: item.pk, sk: item.sk }, 'a1: expected a latest entry')
  }
  return { userId, latest: parseInt(latest, 36), userType: userType?.success ? userType.output : undefined }
}

/** Users by latest activity, most recent first (ties: the larger id first), at most `limit`. */
export const latestTopParams = (tenant: TenantContext, limit: number): Params => ({
  ...onIndex(tenant, cond.between(activityIndex.sk, LATEST, `${LATEST}~`)),
  ScanIndexForward: false,
  Limit: limit,
})

/** Users whose latest activity falls between two instants (milliseconds, both included). */
export const latestBetweenParams = (tenant: TenantContext, from: number, to: number): Params =>
  onIndex(tenant, cond.between(activityIndex.sk, `${LATEST}${msKey(from)}`, `${LATEST}${msKey(to)}#~`))

/** One user's act2 entries: their enrollments last active at or after `since`, and their own entry. */
export const userEntriesParams = (tenant: TenantContext, userId: string, since?: number): Params => ({
  IndexName: userActivityIndex.name,
  ...queryExpression({
    key: cond.and(
      cond.eq(userActivityIndex.pk, keys.userActivityIndexPk(tenant, userId)),
      cond.between(
        userActivityIndex.sk,
        since === undefined ? ENROLLMENT : `${ENROLLMENT}${msKey(since)}`,
        `${USER}~`,
      ),
    ),
  }),
})

/** Whether an act1/act2 value is a user's own entry (else an enrollment's). */
export const isUserEntry = (a1: string): boolean => a1.startsWith(USER)
