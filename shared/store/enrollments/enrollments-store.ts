/**
 * Enrollments. A pair item per user and course guards "one live enrollment" with a condition;
 * seat limits are a condition on the course's seats_taken; every status change moves the
 * tenant's counters in the same transaction. Each enrollment is in five indexes: tenant-wide by
 * enrolled_at, due_date and completed_at (gsi1-3), by user (gsi4) and by course (gsi5).
 */
import { isCounted, type Enrollment } from '../../domain/enrollments/enrollment.ts'
import { issuedCertificate, type Certificate } from '../../domain/enrollments/progress.ts'
import type { Effects } from '../../domain/events.ts'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import { batchGet, getItem, type TransactItem } from '../core/db.ts'
import {
  enrollmentItem,
  pairIndexKeys,
  pairItem,
  toEnrollment,
  toPair,
  type PairState,
} from './enrollment-items.ts'
import {
  cond,
  conditionExpression,
  isEmptyUpdate,
  updateExpression,
  type Condition,
} from '../core/expression.ts'
import { keys, type Key } from '../core/keys.ts'
import { effectSteps } from '../outbox/outbox-items.ts'
import { skillLevelSteps } from '../skills/held-skill-items.ts'
import { addSteps, commit, type Step } from '../core/transaction.ts'
import { projectionSteps, readProjectionSteps, type ReportChange } from '../reports/report-projections.ts'

export type { PairState }

export const getEnrollmentParams = (tenant: TenantContext, id: string) => ({
  Key: keys.enrollment(tenant, id),
})

export async function getEnrollment(
  tenant: TenantContext,
  id: string,
  { consistent = false } = {},
): Promise<Enrollment | undefined> {
  const item = await getItem(getEnrollmentParams(tenant, id).Key, consistent ? { ConsistentRead: true } : {})
  return item ? toEnrollment(item) : undefined
}

/** The keys of a batch read of enrollments, each id once. */
export const getEnrollmentsParams = (tenant: TenantContext, ids: readonly string[]): Key[] =>
  [...new Set(ids)].map((id) => keys.enrollment(tenant, id))

export async function getEnrollments(tenant: TenantContext, ids: readonly string[]): Promise<Enrollment[]> {
  return (await batchGet(getEnrollmentsParams(tenant, ids))).map(toEnrollment)
}

export const pairKey = (userId: string, courseId: string) => `${userId}/${courseId}`

/** The keys of a batch read of pair guards, each (user, course) once. */
export function getPairsParams(
  tenant: TenantContext,
  pairs: readonly { userId: string; courseId: string }[],
): Key[] {
  const unique = new Map(pairs.map((p) => [pairKey(p.userId, p.courseId), p]))
  return [...unique.values()].map((p) => keys.enrollmentPair(tenant, p.userId, p.courseId))
}

/** The current enrollment of each (user, course), read in batches of 100. */
export async function getPairs(
  tenant: TenantContext,
  pairs: readonly { userId: string; courseId: string }[],
): Promise<Map<string, PairState>> {
  const items = await batchGet(getPairsParams(tenant, pairs))
  return new Map(items.map(toPair).map((p) => [pairKey(p.userId, p.courseId), p]))
}

/** The dropped or expired enrollment a new one reuses, as the decision read it. */
export interface Replaced {
  /** The pair item as read: its status is what the decision to re-enroll was made on. */
  readonly pair: PairState
  /** The enrollment record as read: its version is what the clean slate replaces. */
  readonly enrollment: Enrollment
}

/** A new (or reactivated) enrollment and what it causes, written together or not at all. */
export interface NewEnrollment {
  readonly enrollment: Enrollment
  /** Set when this reactivates a dropped or expired enrollment (same id). */
  readonly replaces: Replaced | undefined
  readonly effects: Effects
}

/** Why one row of a group was refused: the pair or record changed, or the user was deactivated. */
export type RowRefusal = 'duplicate' | 'user_inactive'

/**
 * What a failed condition of an enrollment group means: row `row`'s pair or record changed
 * (`duplicate`) or its user was deactivated (`user_inactive`); or the course refused (gone,
 * unpublished, or its seats taken); or a user's latest activity moved meanwhile (`activity`: read
 * again and retry).
 */
export type GroupRefusal = { readonly row: number; readonly kind: RowRefusal } | 'course' | 'activity'

/** The guards of a group besides each row's own: what the course and the users must be. */
export interface GroupGuards {
  readonly seatLimit: number | null
  /** Historical imports may land in any course; everything else needs it published. */
  readonly requirePublished?: boolean
  /** Historical imports may record a former (deactivated) user's completion; enrollments may not. */
  readonly requireActiveUsers?: boolean
}

/** The pair guard: absent for a first enrollment; for a reactivation, exactly as the decision read it. */
function pairStep(tenant: TenantContext, row: NewEnrollment, index: number): Step<GroupRefusal> {
  const Item = pairItem(tenant, row.enrollment, row.enrollment.enrolledAt)
  const read = row.replaces?.pair
  const condition = read
    ? cond.and(cond.eq('enrollment_id', read.enrollmentId), cond.eq('status', read.status))
    : cond.notExists()
  return {
    item: { Put: { Item, ...conditionExpression(condition) } },
    refusal: { row: index, kind: 'duplicate' },
  }
}

/** The record: new, or replacing exactly the version that was read (its counters follow from it). */
function enrollmentStep(tenant: TenantContext, row: NewEnrollment, index: number): Step<GroupRefusal> {
  const read = row.replaces?.enrollment
  const condition = read
    ? cond.and(cond.eq('updated_at', read.updatedAt), cond.eq('status', read.status))
    : cond.notExists()
  return {
    item: { Put: { Item: enrollmentItem(tenant, row.enrollment), ...conditionExpression(condition) } },
    refusal: { row: index, kind: 'duplicate' },
  }
}

/** The user the decision found active is still active when the enrollment is written. */
function activeUserStep<R>(tenant: TenantContext, userId: string, refusal: R): Step<R> {
  return {
    item: {
      ConditionCheck: {
        Key: keys.user(tenant, userId),
        ...conditionExpression(cond.and(cond.exists(), cond.eq('is_active', true))),
      },
    },
    refusal,
  }
}

/** What enrollments add to their course's count and seats taken (negative when they leave it). */
function seatsOf(after: readonly Enrollment[], before: readonly Enrollment[] = []) {
  const sum = (list: readonly Enrollment[], f: (e: Enrollment) => boolean) => list.filter(f).length
  return {
    enrollment_count: sum(after, (e) => isCounted(e.status)) - sum(before, (e) => isCounted(e.status)),
    seats_taken: sum(after, (e) => e.holdsSeat) - sum(before, (e) => e.holdsSeat),
  }
}

/**
 * The course's count and seats move by `add`; with `guards`, only while it exists (and is
 * published) with room for the seats taken: refused as `refusal`.
 */
function courseSteps<R>(
  tenant: TenantContext,
  courseId: string,
  add: { readonly enrollment_count: number; readonly seats_taken: number },
  guards: GroupGuards | undefined,
  refusal: R,
): Step<R>[] {
  const Key = keys.course(tenant, courseId)
  if (!guards) return addSteps(Key, add)
  const conditions: Condition[] = [cond.exists()]
  if (guards.requirePublished !== false) conditions.push(cond.eq('status', 'published'))
  if (add.seats_taken > 0 && guards.seatLimit !== null)
    conditions.push(cond.le('seats_taken', guards.seatLimit - add.seats_taken))
  const condition = cond.and(...conditions)
  const item: TransactItem = isEmptyUpdate({ add })
    ? { ConditionCheck: { Key, ...conditionExpression(condition) } }
    : { Update: { Key, ...updateExpression({ add }, condition) } }
  return [{ item, refusal }]
}

/**
 * The transaction of new (or reactivated) enrollments of ONE course: each row's pair guard,
 * enrollment and outbox items, each user's active check, then the course (published; seats
 * available for the rows that take one), then what the reports' projections move with the rows
 * (report-projections.ts: the counters, tallies and histograms). Rows of one course are distinct users
 * (one pair item each, and an item may appear once in a transaction). Callers keep it within
 * DynamoDB's 100 items (2 per row plus its effects, 1 per user, the course and the counters).
 */
export function insertEnrollmentsParams(
  tenant: TenantContext,
  courseId: string,
  rows: readonly NewEnrollment[],
  guards: GroupGuards,
): Step<GroupRefusal>[] {
  const users = new Set(rows.map((r) => r.enrollment.userId))
  if (users.size !== rows.length) throw new Error('An enrollment group holds one row per user')
  const projected = projectionSteps(tenant, addedChange(rows), (row) => ({ row, kind: 'duplicate' as const }))
  return [
    ...rows.flatMap((row, i) => [
      pairStep(tenant, row, i),
      enrollmentStep(tenant, row, i),
      ...effectSteps(tenant, row.effects),
    ]),
    ...(guards.requireActiveUsers === false
      ? []
      : rows.map((row, i) =>
          activeUserStep<GroupRefusal>(tenant, row.enrollment.userId, { row: i, kind: 'user_inactive' }),
        )),
    ...courseSteps(tenant, courseId, seatsOf(rows.map((r) => r.enrollment)), guards, 'course' as const),
    ...projected.counters,
    ...projected.steps,
  ]
}

const addedChange = (rows: readonly NewEnrollment[]): ReportChange => ({
  kind: 'enrollments-added',
  writes: rows.map((r) => ({ before: r.replaces?.enrollment, after: r.enrollment })),
})

/**
 * Writes new (or reactivated) enrollments of one course in one transaction. Every condition
 * guards the state the decision read, so a concurrent change makes the write fail instead of
 * counting twice.
 * @throws WriteRefused<GroupRefusal> naming each refused row (`{ row, kind }`) and `course`
 */
export async function insertEnrollments(
  tenant: TenantContext,
  courseId: string,
  rows: readonly NewEnrollment[],
  guards: GroupGuards,
): Promise<void> {
  const read = await readProjectionSteps<GroupRefusal>(tenant, addedChange(rows), 'activity')
  await commit([...insertEnrollmentsParams(tenant, courseId, rows, guards), ...read])
}

/**
 * What a move out of a queue (approval, promotion) must still find true when it is written: the
 * course published with room for the seat it takes, and the learner active.
 */
export interface AdmissionGuards {
  readonly seatLimit: number | null
}

/** An enrollment's next state and what the change causes. */
export interface EnrollmentChange {
  readonly before: Enrollment
  readonly after: Enrollment
  readonly effects: Effects
  /** Set for an admission: its course and user conditions (refused as `course`, `user_inactive`). */
  readonly admission?: AdmissionGuards
}

/** Why a change was refused: changed meanwhile, pair taken over, or an admission's guards. */
export type ChangeRefusal = 'stale' | 'pair_replaced' | 'certificate_exists' | 'course' | 'user_inactive'

function certificateStep(tenant: TenantContext, c: Certificate): Step<ChangeRefusal> {
  return {
    item: {
      Put: {
        Item: {
          ...keys.certificate(tenant, c.id),
          type: 'certificate',
          id: c.id,
          number: c.number,
          user_id: c.userId,
          course_id: c.courseId,
          enrollment_id: c.enrollmentId,
          issued_at: c.issuedAt,
          expires_at: c.expiresAt,
        },
        ...conditionExpression(cond.notExists()),
      },
    },
    refusal: 'certificate_exists',
  }
}

/**
 * The transaction replacing an enrollment with its next state if it is still as `before` says
 * (`stale` otherwise), moving the pair guard, the course's seats and count, and the counters with
 * it, and writing the certificate it issues and its effects.
 */
export function saveEnrollmentParams(tenant: TenantContext, change: EnrollmentChange): Step<ChangeRefusal>[] {
  const { before, after, effects } = change
  const asRead = cond.and(
    cond.eq('updated_at', before.updatedAt),
    cond.eq('status', before.status),
    // An AGS link written meanwhile (lti-ags-store.ts) is not overwritten by an older copy.
    before.scoresLinked ? cond.eq('scores_linked', true) : cond.notExists('scores_linked'),
  )
  const index = pairIndexKeys(tenant, after, after.updatedAt)
  const pairMoves: Step<ChangeRefusal>[] =
    after.status === before.status
      ? []
      : [
          {
            item: {
              Update: {
                Key: keys.enrollmentPair(tenant, before.userId, before.courseId),
                ...updateExpression(
                  { set: { status: after.status, ...index.set }, remove: index.remove },
                  cond.eq('enrollment_id', before.id),
                ),
              },
            },
            refusal: 'pair_replaced',
          },
        ]
  const certificate = issuedCertificate(before, after)
  const projected = projectionSteps(tenant, changedChange(change), (): ChangeRefusal => 'stale')
  return [
    {
      item: { Put: { Item: enrollmentItem(tenant, after), ...conditionExpression(asRead) } },
      refusal: 'stale',
    },
    ...pairMoves,
    ...courseSteps(tenant, before.courseId, seatsOf([after], [before]), change.admission, 'course' as const),
    ...(change.admission ? [activeUserStep(tenant, after.userId, 'user_inactive' as const)] : []),
    ...projected.counters,
    ...(certificate ? [certificateStep(tenant, certificate)] : []),
    ...effectSteps(tenant, effects, { scoresLinked: after.scoresLinked }),
    ...skillLevelSteps(tenant, effects),
    ...projected.steps,
  ]
}

const changedChange = ({ before, after }: EnrollmentChange): ReportChange => ({
  kind: 'enrollment-changed',
  before,
  after,
})

/**
 * @throws WriteRefused `stale` when the enrollment changed since `before` was read; for an
 * admission, `course` (unpublished or full) or `user_inactive`
 */
export async function saveEnrollment(tenant: TenantContext, change: EnrollmentChange): Promise<void> {
  const read = await readProjectionSteps<ChangeRefusal>(tenant, changedChange(change), 'stale')
  await commit([...saveEnrollmentParams(tenant, change), ...read])
}
