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
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import { getItem, updateItem, type Item } from '../core/db.ts'
import { cond, conditionExpression, updateExpression, type Condition } from '../core/expression.ts'
import { keys, type Key } from '../core/keys.ts'
import { retryOnConflict } from '../core/optimistic.ts'
import { WriteRefused } from '../core/store-errors.ts'
import { commit, writeOrRefuse, type Step } from '../core/transaction.ts'
import { enrollmentItem, toEnrollment } from '../enrollments/enrollment-items.ts'
import { latestActivityProjection } from '../reports/activity-latest-items.ts'
import {
  projectionSteps,
  readProjectionSteps,
  reportProjections,
  type ReportChange,
} from '../reports/report-projections.ts'
import { statusCountersProjection } from '../reports/status-counters.ts'
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

/**
 * The projections an old item is missing: all but the status counters, which counted it when it
 * was written (they are older than every report decision).
 */
const missingProjections = reportProjections.filter((p) => p !== statusCountersProjection)

/** An old enrollment as the report projections see it: new, as a fresh write of it would be. */
const asNew = (e: Enrollment): ReportChange => ({
  kind: 'enrollments-added',
  writes: [{ before: undefined, after: e }],
})

/**
 * The transaction of one old enrollment: itself as written now, and the aggregates the enrollment
 * writer adds for a new enrollment in that state, from the same registry (report-projections.ts).
 */
export function enrollmentBackfillSteps(tenant: TenantContext, e: Enrollment): Step<Refusal>[] {
  const stillOld = cond.and(
    cond.exists(),
    cond.notExists(CURRENT_ENROLLMENT),
    cond.eq('updated_at', e.updatedAt),
  )
  const { counters, steps } = projectionSteps(tenant, asNew(e), (): Refusal => 'stale', missingProjections)
  return [
    {
      item: { Put: { Item: enrollmentItem(tenant, e), ...conditionExpression(stillOld) } },
      refusal: 'stale',
    },
    ...counters,
    ...steps,
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
      const activity = await readProjectionSteps<Refusal>(tenant, asNew(e), 'activity', missingProjections)
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
      // Its sign-in, as if it were new: the latest activity is the only projection a user moves.
      const signedIn: ReportChange = {
        kind: 'user-changed',
        before: { ...user, lastLoginAt: null },
        after: user,
      }
      const activity = await readProjectionSteps<Refusal>(tenant, signedIn, 'activity', [
        latestActivityProjection,
      ])
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
