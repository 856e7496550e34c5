/**
 * The report keys and aggregates of items written before decisions 0018 and 0022-0026
 * (docs/decisions/0033-migrations.md): an enrollment item re-put as the writer writes it now (its
 * report index keys: rpt1, rpt3-rpt7, act1/act2) in ONE transaction with the ADDs a fresh write of
 * it makes (course tally, expiry histogram, course day tally, hour histograms) and its user's
 * latest activity; a user item given its act1/act2 entry and its sign-in's latest activity; a
 * course's tally given its title (0026).
 *
 * Exactly once: the enrollment's Put is conditioned on the item still lacking `rpt4pk` (every
 * enrollment the current writer writes has it) and on its `updated_at` as read, so the ADDs of one
 * item commit once, whatever number of runs, pages read twice or runners. The latest activity is a
 * maximum moved under a condition on the latest read (activity-latest-items.ts): repeating it
 * changes nothing.
 */
import type { Enrollment } from '../../domain/enrollments/enrollment.ts'
import { instantsOf } from '../../domain/reports/activity-latest.ts'
import { expiryBucketDelta } from '../../domain/reports/compliance-totals.ts'
import { tallyDelta } from '../../domain/reports/course-performance.ts'
import { dayTallyDeltas } from '../../domain/reports/period-days.ts'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import { getItem, updateItem, type Item } from '../core/db.ts'
import {
  cond,
  conditionExpression,
  isEmptyUpdate,
  updateExpression,
  type Condition,
} from '../core/expression.ts'
import { keys, type Key } from '../core/keys.ts'
import { retryOnConflict } from '../core/optimistic.ts'
import { WriteRefused } from '../core/store-errors.ts'
import { commit, writeOrRefuse, type Step } from '../core/transaction.ts'
import { enrollmentItem, toEnrollment } from '../enrollments/enrollment-items.ts'
import { activityLatestSteps, type ActivityChange } from '../reports/activity-latest-items.ts'
import { expiryCounterDeltas, expiryMonthSteps } from '../reports/compliance-histogram-items.ts'
import { courseDayTallySteps } from '../reports/course-day-tallies.ts'
import { courseTallySteps } from '../reports/course-report-items.ts'
import { rangeHistogramSteps } from '../reports/range-histogram-items.ts'
import { userReportKeys } from '../reports/report-indexes.ts'
import { toUser } from '../users/users-store.ts'

/** An attribute every enrollment written since 0023 carries (report-indexes.ts, rpt4). */
const CURRENT_ENROLLMENT = 'rpt4pk'
/** What every user written since 0022 carries (activity-index.ts). */
const CURRENT_USER = 'a1'
/**
 * Attributes an enrollment could carry from the code between 0018 and 0023 (rpt1, rpt2, act1):
 * such an item is already counted in its course tally, so it is left alone and counted as skipped.
 */
const BETWEEN_SHAPES = ['rpt1pk', 'rpt2pk', 'a1'] as const

/** The items this backfill may change: enrollments and users without their report keys, and courses. */
export const reportBackfillFilter: Condition = cond.or(
  cond.and(cond.eq('type', 'enrollment'), cond.notExists(CURRENT_ENROLLMENT)),
  cond.and(cond.eq('type', 'user'), cond.notExists(CURRENT_USER)),
  cond.eq('type', 'course'),
)

/** The items of one tenant's partition. */
export const inTenantPartition = (tenantId: string): Condition =>
  cond.eq('pk', keys.tenantPartition({ id: tenantId }))

export type Backfilled = 'changed' | 'unchanged' | 'skipped'

/** The tenant an item of a tenant partition (`T#<id>`) belongs to; undefined for any other item. */
export function tenantIdOf(item: Item): string | undefined {
  const pk = item.pk
  return typeof pk === 'string' && pk.startsWith('T#') ? pk.slice(2) : undefined
}

type Refusal = 'stale' | 'activity'
const isRace = (err: unknown) => err instanceof WriteRefused && (err.has('stale') || err.has('activity'))

/** What a fresh write of `e` adds to the tenant's counters (0023's `assign_none`; the rest existed before). */
function countersStep(tenant: TenantContext, e: Enrollment): Step<never>[] {
  const add = expiryCounterDeltas(expiryBucketDelta([{ before: undefined, after: e }]))
  if (isEmptyUpdate({ add })) return []
  return [{ item: { Update: { Key: keys.counters(tenant), ...updateExpression({ add }) } } }]
}

/**
 * The transaction of one old enrollment: itself as written now, and the aggregates the enrollment
 * writer (enrollments-store.ts) adds for a new enrollment in that state, built by the same builders.
 */
export function enrollmentBackfillSteps(tenant: TenantContext, e: Enrollment): Step<Refusal>[] {
  const writes = [{ before: undefined, after: e }]
  const stillOld = cond.and(
    cond.exists(),
    cond.notExists(CURRENT_ENROLLMENT),
    cond.eq('updated_at', e.updatedAt),
  )
  return [
    {
      item: { Put: { Item: enrollmentItem(tenant, e), ...conditionExpression(stillOld) } },
      refusal: 'stale',
    },
    ...courseTallySteps(tenant, e.courseId, tallyDelta(undefined, e)),
    ...countersStep(tenant, e),
    ...expiryMonthSteps(tenant, expiryBucketDelta(writes)),
    ...courseDayTallySteps(tenant, e.courseId, dayTallyDeltas(writes)),
    ...rangeHistogramSteps(tenant, writes),
  ]
}

const isOldEnrollment = (item: Item) => item.type === 'enrollment' && item[CURRENT_ENROLLMENT] === undefined
const isBetweenShapes = (item: Item) => BETWEEN_SHAPES.some((a) => item[a] !== undefined)

/** Reads the item again (a race lost: it may have been migrated or rewritten meanwhile). */
const reread = (key: Key) => getItem(key, { ConsistentRead: true })

/** One enrollment item as the Scan returned it. */
export async function backfillEnrollment(tenant: TenantContext, scanned: Item): Promise<Backfilled> {
  if (isBetweenShapes(scanned)) return 'skipped'
  const key = { pk: String(scanned.pk), sk: String(scanned.sk) }
  return retryOnConflict(
    async (attempt) => {
      const item = attempt === 0 ? scanned : await reread(key)
      if (!item || !isOldEnrollment(item)) return 'unchanged'
      const e = toEnrollment(item)
      const change: ActivityChange = {
        userId: e.userId,
        replaced: undefined,
        before: [],
        after: instantsOf(e.startedAt, e.completedAt),
      }
      const activity = await activityLatestSteps<Refusal>(tenant, change, 'activity')
      await commit([...enrollmentBackfillSteps(tenant, e), ...activity])
      return 'changed'
    },
    { isConflict: isRace, tries: 8 },
  )
}

/** One user item as the Scan returned it: its act1/act2 entry and its sign-in in the latest activity. */
export async function backfillUser(tenant: TenantContext, scanned: Item): Promise<Backfilled> {
  const key = { pk: String(scanned.pk), sk: String(scanned.sk) }
  return retryOnConflict(
    async (attempt) => {
      const item = attempt === 0 ? scanned : await reread(key)
      if (!item || item.type !== 'user' || item[CURRENT_USER] !== undefined) return 'unchanged'
      const user = toUser(item)
      const stillOld = cond.and(
        cond.exists(),
        cond.notExists(CURRENT_USER),
        cond.eq('updated_at', user.updatedAt),
      )
      const own: Step<Refusal> = {
        item: { Update: { Key: key, ...updateExpression({ set: userReportKeys(tenant, user) }, stillOld) } },
        refusal: 'stale',
      }
      const change: ActivityChange = {
        userId: user.id,
        replaced: undefined,
        before: [],
        after: instantsOf(user.lastLoginAt),
      }
      const activity = await activityLatestSteps<Refusal>(tenant, change, 'activity')
      await commit([own, ...activity])
      return 'changed'
    },
    { isConflict: isRace, tries: 8 },
  )
}

/** A course's tally given the course title when it has none (courses created before 0026). */
export async function backfillCourseTitle(tenant: TenantContext, course: Item): Promise<Backfilled> {
  if (typeof course.id !== 'string' || typeof course.title !== 'string') return 'skipped'
  const set = { title: course.title, course_id: course.id, type: 'course_report' }
  try {
    await writeOrRefuse(
      updateItem({
        Key: keys.courseReport(tenant, course.id),
        ...updateExpression({ set }, cond.notExists('title')),
      }),
      'titled',
    )
    return 'changed'
  } catch (err) {
    if (err instanceof WriteRefused && err.has('titled')) return 'unchanged'
    throw err
  }
}
