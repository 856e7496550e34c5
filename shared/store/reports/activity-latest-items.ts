/**
 * Users' latest activity (docs/decisions/0024-user-activity-aggregate.md): per user an item
 * `UACT#<user id>` holding the latest of their sign-in, starts and completions (on act1 as
 * `A<latest>#<user id>`), and per tenant a histogram of users by the UTC day of their latest
 * (`RPTACT#<yyyy-mm>`, attribute `d<dd>`). Every write that adds or removes such an instant moves
 * both in its own transaction, conditioned on the latest it read, so a concurrent move makes it
 * retry instead of counting a user twice.
 */
import * as v from 'valibot'
import {
  dayOf,
  decideLatest,
  instantsNotIn,
  instantsOf,
  latestOf,
} from '../../domain/reports/activity-latest.ts'
import type { Enrollment } from '../../domain/enrollments/enrollment.ts'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import { userTypes, type User, type UserType } from '../../domain/users/user.ts'
import {
  enrollmentActivityAttributes,
  isUserEntry,
  latestEntryValue,
  toEnrollmentActivity,
  toUserActivity,
  userActivityAttributes,
  userEntriesParams,
} from './activity-index.ts'
import { getItem, queryAll, type Item } from '../core/db.ts'
import { decodeItem } from '../core/decode.ts'
import { cond, conditionExpression } from '../core/expression.ts'
import { keys } from '../core/keys.ts'
import { userActivityKeys } from './report-indexes.ts'
import { addSteps, type Step } from '../core/transaction.ts'
import { moveOnDay, type Projection } from './projection.ts'

const Latest = v.object({ latest: v.number(), user_type: v.optional(v.picklist(userTypes)) })

/** A user's latest activity item as stored: when, and the user's type it is counted under. */
export interface LatestState {
  readonly latest: number
  readonly userType: UserType | undefined
}

/** A user's latest activity as stored (consistent read: the write that follows is conditioned on it). */
export async function readLatest(tenant: TenantContext, userId: string): Promise<LatestState | null> {
  const item = await getItem(keys.activityLatest(tenant, userId), { ConsistentRead: true })
  if (!item) return null
  const i = decodeItem('latest activity', Latest, item)
  return { latest: i.latest, userType: i.user_type }
}

const UserTypeOnly = v.object({ user_type: v.picklist(userTypes) })

/** The type of a user whose first activity this is (the user item; undefined when it is gone). */
async function readUserType(tenant: TenantContext, userId: string): Promise<UserType | undefined> {
  const item = await getItem(keys.user(tenant, userId), { ProjectionExpression: 'user_type' })
  return item ? decodeItem('user', UserTypeOnly, item).user_type : undefined
}

/**
 * The user's latest item moved from `from` (as read; null when absent) to `to` (null: no
 * activity left), and the histogram's days with it, under the user's type before and after.
 */
export function latestMoveSteps<R>(
  tenant: TenantContext,
  userId: string,
  from: LatestState | null,
  to: { readonly latest: number | null; readonly userType: UserType | undefined },
  refusal: R,
): Step<R>[] {
  if (from?.latest === to.latest && from?.userType === to.userType) return []
  if (from === null && to.latest === null) return []
  const Key = keys.activityLatest(tenant, userId)
  const asRead =
    from === null
      ? cond.notExists()
      : cond.and(
          cond.eq('latest', from.latest),
          from.userType === undefined ? cond.notExists('user_type') : cond.eq('user_type', from.userType),
        )
  const own: Step<R> =
    to.latest === null
      ? { item: { Delete: { Key, ...conditionExpression(asRead) } }, refusal }
      : {
          item: {
            Put: {
              Item: {
                ...Key,
                type: 'user_activity_latest',
                user_id: userId,
                latest: to.latest,
                ...(to.userType === undefined ? {} : { user_type: to.userType }),
                a1: latestEntryValue(userId, to.latest, to.userType),
              },
              ...conditionExpression(asRead),
            },
          },
          refusal,
        }
  // The histogram counts every user on their day, and apart under their type.
  const byMonth = new Map<string, Record<string, number>>()
  if (from !== null) moveOnDay(byMonth, dayOf(from.latest), -1, from.userType)
  if (to.latest !== null) moveOnDay(byMonth, dayOf(to.latest), 1, to.userType)
  const steps = [...byMonth].flatMap(([month, add]) =>
    addSteps(keys.activityLatestMonth(tenant, month), add, { type: 'activity_histogram', month }),
  )
  return [own, ...steps]
}

/** What a write replaces of one user's activity: the act1 value it removes, the instants before and after. */
export interface ActivityChange {
  readonly userId: string
  /** The `a1` of the item as it was (its entry is left out when the user's instants are read again). */
  readonly replaced: string | undefined
  readonly before: readonly number[]
  readonly after: readonly number[]
  /** A user's own change names their type before and after; an enrollment's does not know it. */
  readonly userType?: { readonly before: UserType; readonly after: UserType }
}

const enrollmentActivityChange = (before: Enrollment | undefined, after: Enrollment): ActivityChange => ({
  userId: after.userId,
  replaced: before ? (enrollmentActivityAttributes(before).a1 as string | undefined) : undefined,
  before: before ? instantsOf(before.startedAt, before.completedAt) : [],
  after: instantsOf(after.startedAt, after.completedAt),
})

const userActivityChange = (before: User, after: User): ActivityChange => ({
  userId: after.id,
  replaced: userActivityAttributes(before).a1 as string,
  before: instantsOf(before.lastLoginAt),
  after: instantsOf(after.lastLoginAt),
  userType: { before: before.userType, after: after.userType },
})

/** Every instant of a user's act2 entries but the one `replaced` names. */
async function otherInstants(tenant: TenantContext, userId: string, replaced: string | undefined) {
  const items = await queryAll(userEntriesParams(tenant, userId))
  let skipped = false
  return items.flatMap((item: Item) => {
    if (!skipped && item.a1 === replaced) {
      skipped = true
      return []
    }
    if (isUserEntry(String(item.a1))) return instantsOf(toUserActivity(item).lastLoginAt)
    const e = toEnrollmentActivity(item)
    return instantsOf(e.startedAt, e.completedAt)
  })
}

/**
 * The steps that keep the user's latest true after `change`, or none: a later instant moves it
 * up; an instant that may have been the latest gone (a backdated start, an older sign-in written
 * over a newer one) reads the user's other instants (act2) and moves it to theirs; a change of
 * the user's type moves them to the new type's count.
 */
async function activityLatestSteps<R>(
  tenant: TenantContext,
  change: ActivityChange,
  refusal: R,
): Promise<Step<R>[]> {
  const instantsMove =
    instantsNotIn(change.before, change.after).length + instantsNotIn(change.after, change.before).length > 0
  const typeMoves = change.userType !== undefined && change.userType.before !== change.userType.after
  if (!instantsMove && !typeMoves) return []
  const read = await readLatest(tenant, change.userId)
  if (read === null && !instantsMove) return []
  const decision = decideLatest(read?.latest ?? null, change.before, change.after)
  const latest =
    decision.kind === 'keep'
      ? (read?.latest ?? null)
      : decision.kind === 'move'
        ? decision.to
        : latestOf([...(await otherInstants(tenant, change.userId, change.replaced)), ...change.after])
  const userType =
    change.userType?.after ?? (read === null ? await readUserType(tenant, change.userId) : read.userType)
  return latestMoveSteps(tenant, change.userId, read, { latest, userType }, refusal)
}

/**
 * A reactivation starts the enrollment afresh; what the learner did in it before stays history
 * (decision 0024): its act1/act2 entry is kept as an item of its own, so the user's instants, and
 * with them their latest, never move down because an enrollment was replaced.
 */
export function activityHistorySteps<R>(tenant: TenantContext, replaced: Enrollment, refusal: R): Step<R>[] {
  const activity = enrollmentActivityAttributes(replaced)
  if (activity.a1 === undefined) return []
  const Item = {
    ...keys.activityHistory(tenant, replaced.id, replaced.updatedAt),
    type: 'enrollment_activity_history',
    user_id: replaced.userId,
    enrollment_id: replaced.id,
    ...userActivityKeys(tenant, replaced.userId, activity),
  }
  return [{ item: { Put: { Item, ...conditionExpression(cond.notExists()) } }, refusal }]
}

/**
 * A reactivation keeps the record it replaces as history (no read needed: the item is new); a
 * change that adds or takes away an instant moves the user's latest, conditioned on the value read.
 */
export const latestActivityProjection: Projection = {
  name: 'latest activity',
  movesFor: (tenant, change) => ({
    steps:
      change.kind === 'enrollments-added'
        ? change.writes.flatMap((w, i) => (w.before ? activityHistorySteps(tenant, w.before, i) : []))
        : [],
  }),
  readStepsFor: async (tenant, change, refusal) => {
    const changes =
      change.kind === 'user-changed'
        ? [userActivityChange(change.before, change.after)]
        : change.kind === 'enrollment-changed'
          ? [enrollmentActivityChange(change.before, change.after)]
          : // Only an imported completion arrives with instants; a replaced row's stay as history.
            change.writes.map((w) => enrollmentActivityChange(undefined, w.after))
    return (await Promise.all(changes.map((c) => activityLatestSteps(tenant, c, refusal)))).flat()
  },
}

/**
 * The latest items and histogram of a freshly seeded tenant (bench seeding: no item exists yet),
 * as the writes above would have left them.
 */
export function seedLatestItems(
  tenant: TenantContext,
  users: readonly Pick<User, 'id' | 'lastLoginAt' | 'userType'>[],
  enrollments: readonly Pick<Enrollment, 'userId' | 'startedAt' | 'completedAt'>[],
): Item[] {
  const instants = new Map<string, number[]>()
  const add = (userId: string, list: number[]) =>
    instants.set(userId, [...(instants.get(userId) ?? []), ...list])
  const types = new Map(users.map((u) => [u.id, u.userType]))
  for (const u of users) add(u.id, instantsOf(u.lastLoginAt))
  for (const e of enrollments) add(e.userId, instantsOf(e.startedAt, e.completedAt))
  const items: Item[] = []
  const months = new Map<string, Record<string, number>>()
  for (const [userId, list] of instants) {
    const latest = latestOf(list)
    if (latest === null) continue
    const steps = latestMoveSteps(tenant, userId, null, { latest, userType: types.get(userId) }, undefined)
    const put = steps[0]?.item.Put?.Item
    if (put) items.push(put)
    moveOnDay(months, dayOf(latest), 1, types.get(userId))
  }
  for (const [month, days] of months) {
    items.push({ ...keys.activityLatestMonth(tenant, month), type: 'activity_histogram', month, ...days })
  }
  return items
}
