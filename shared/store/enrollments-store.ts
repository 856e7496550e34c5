/**
 * Enrollments. A pair item per user and course guards "one live enrollment" with a condition;
 * seat limits are a condition on the course's seats_taken; every status change moves the
 * tenant's counters in the same transaction. Each enrollment is in five indexes: tenant-wide by
 * enrolled_at, due_date and completed_at (gsi1-3), by user (gsi4) and by course (gsi5).
 */
import type { Enrollment, EnrollmentStatus } from '../domain/enrollments/enrollment.ts'
import type { TenantContext } from '../domain/tenants/tenant.ts'
import {
  batchGet,
  getItem,
  transact,
  TransactionConditionFailed,
  type Item,
  type TransactItem,
} from './db.ts'
import { enrollmentItem, toEnrollment, toPair, type PairState } from './enrollment-items.ts'
import { keys } from './keys.ts'

export type { PairState }

export async function getEnrollment(tenant: TenantContext, id: string): Promise<Enrollment | undefined> {
  const item = await getItem(keys.enrollment(tenant, id))
  return item ? toEnrollment(item) : undefined
}

export async function getEnrollments(tenant: TenantContext, ids: readonly string[]): Promise<Enrollment[]> {
  return (await batchGet([...new Set(ids)].map((id) => keys.enrollment(tenant, id)))).map(toEnrollment)
}

export const pairKey = (userId: string, courseId: string) => `${userId}/${courseId}`

/** The current enrollment of each (user, course), read in batches of 100. */
export async function getPairs(
  tenant: TenantContext,
  pairs: readonly { userId: string; courseId: string }[],
): Promise<Map<string, PairState>> {
  const unique = new Map(pairs.map((p) => [pairKey(p.userId, p.courseId), p]))
  const items = await batchGet(
    [...unique.values()].map((p) => keys.enrollmentPair(tenant, p.userId, p.courseId)),
  )
  return new Map(items.map(toPair).map((p) => [pairKey(p.userId, p.courseId), p]))
}

/** Counted when it is not dropped or expired: what a course's enrollment_count shows. */
const counts = (s: EnrollmentStatus) => s !== 'dropped' && s !== 'expired'

function statusCounterDeltas(before: Enrollment | undefined, after: Enrollment): Record<string, number> {
  const d: Record<string, number> = {}
  const add = (k: string, n: number) => (d[k] = (d[k] ?? 0) + n)
  if (!before) add('enrollments_total', 1)
  if (before?.status !== after.status) {
    if (before) add(`enrollments_status_${before.status}`, -1)
    add(`enrollments_status_${after.status}`, 1)
  }
  if (!before?.completedAt && after.completedAt) add('completions_total', 1)
  return Object.fromEntries(Object.entries(d).filter(([, n]) => n !== 0))
}

/** An ADD of the non-zero deltas to one item, or nothing when there is none. */
function addUpdate(
  key: ReturnType<typeof keys.counters>,
  deltas: Record<string, number>,
): TransactItem | undefined {
  const entries = Object.entries(deltas).filter(([, n]) => n !== 0)
  if (entries.length === 0) return undefined
  const names: Record<string, string> = {}
  const values: Record<string, number> = {}
  const adds = entries.map(([attr, n], i) => {
    names[`#a${i}`] = attr
    values[`:a${i}`] = n
    return `#a${i} :a${i}`
  })
  return {
    Update: {
      Key: key,
      UpdateExpression: `ADD ${adds.join(', ')}`,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    },
  }
}

/** The dropped or expired enrollment a new one reuses, as the decision read it. */
export interface Replaced {
  /** The pair item as read: its status is what the decision to re-enroll was made on. */
  readonly pair: PairState
  /** The enrollment record as read: its version is what the clean slate replaces. */
  readonly enrollment: Enrollment
}

export interface NewEnrollmentRow {
  readonly enrollment: Enrollment
  /** Set when this reactivates a dropped or expired enrollment (same id). */
  readonly replaces: Replaced | undefined
  readonly extra: readonly TransactItem[]
}

/** Why one row of a group was refused: the pair or record changed, or the user was deactivated. */
export type RowRefusal = 'duplicate' | 'user_inactive'

/** Which rows of a group failed their own conditions (and why), and whether the course's did. */
export class EnrollmentGroupRefused extends Error {
  constructor(
    readonly failedRows: ReadonlyMap<number, RowRefusal>,
    readonly courseRefused: boolean,
  ) {
    super('Enrollment group refused')
  }
}

export interface InsertOptions {
  readonly seatLimit: number | null
  /** Historical imports may land in any course; everything else needs it published. */
  readonly requirePublished?: boolean
  /** Historical imports may record a former (deactivated) user's completion; enrollments may not. */
  readonly requireActiveUsers?: boolean
}

/** The pair guard: absent for a first enrollment; for a reactivation, exactly as the decision read it. */
function pairPut(tenant: TenantContext, row: NewEnrollmentRow): TransactItem {
  const e = row.enrollment
  const Item = {
    ...keys.enrollmentPair(tenant, e.userId, e.courseId),
    type: 'enrollment_pair',
    user_id: e.userId,
    course_id: e.courseId,
    enrollment_id: e.id,
    status: e.status,
  }
  if (!row.replaces) return { Put: { Item, ConditionExpression: 'attribute_not_exists(pk)' } }
  return {
    Put: {
      Item,
      ConditionExpression: 'enrollment_id = :id AND #status = :read',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':id': row.replaces.pair.enrollmentId, ':read': row.replaces.pair.status },
    },
  }
}

/** The record: new, or replacing exactly the version that was read (its counters follow from it). */
function enrollmentPut(tenant: TenantContext, row: NewEnrollmentRow): TransactItem {
  const Item = enrollmentItem(tenant, row.enrollment)
  if (!row.replaces) return { Put: { Item, ConditionExpression: 'attribute_not_exists(pk)' } }
  const read = row.replaces.enrollment
  return {
    Put: {
      Item,
      ConditionExpression: 'updated_at = :version AND #status = :status',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':version': read.updatedAt, ':status': read.status },
    },
  }
}

/** The user the decision found active is still active when the enrollment is written. */
function activeUserCheck(tenant: TenantContext, userId: string): TransactItem {
  return {
    ConditionCheck: {
      Key: keys.user(tenant, userId),
      ConditionExpression: 'attribute_exists(pk) AND is_active = :true',
      ExpressionAttributeValues: { ':true': true },
    },
  }
}

/**
 * Writes new (or reactivated) enrollments of ONE course in one transaction: each row's pair guard,
 * enrollment and outbox items, each distinct user's active check, then the course (published;
 * seats available for the rows that take one) and the counters. Every condition guards the state
 * the decision read, so a concurrent change makes the write fail instead of counting twice.
 * Callers keep it within DynamoDB's 100 items (2 per row plus its extra items, 1 per distinct
 * user, the course and the counters). @throws EnrollmentGroupRefused naming what failed.
 */
export async function insertEnrollments(
  tenant: TenantContext,
  courseId: string,
  rows: readonly NewEnrollmentRow[],
  { seatLimit, requirePublished = true, requireActiveUsers = true }: InsertOptions,
): Promise<void> {
  const items: TransactItem[] = []
  const owner: number[] = []
  rows.forEach((row, i) => {
    items.push(pairPut(tenant, row), enrollmentPut(tenant, row), ...row.extra)
    owner.push(i, i, ...row.extra.map(() => i))
  })
  const userChecks = new Map<string, number[]>()
  if (requireActiveUsers) {
    rows.forEach((row, i) => {
      const userId = row.enrollment.userId
      userChecks.set(userId, [...(userChecks.get(userId) ?? []), i])
    })
  }
  const userCheckAt = new Map<number, number[]>()
  for (const [userId, userRows] of userChecks) {
    userCheckAt.set(items.length, userRows)
    items.push(activeUserCheck(tenant, userId))
  }
  const seats = rows.filter((r) => r.enrollment.holdsSeat).length
  const counted = rows.filter((r) => counts(r.enrollment.status)).length
  const courseValues: Record<string, unknown> = { ':n': counted, ':seats': seats }
  let condition = 'attribute_exists(pk)'
  if (requirePublished) {
    condition += ' AND #status = :published'
    courseValues[':published'] = 'published'
  }
  if (seats > 0 && seatLimit !== null) {
    condition += ' AND seats_taken <= :room'
    courseValues[':room'] = seatLimit - seats
  }
  items.push({
    Update: {
      Key: keys.course(tenant, courseId),
      UpdateExpression: 'ADD enrollment_count :n, seats_taken :seats',
      ConditionExpression: condition,
      ...(requirePublished ? { ExpressionAttributeNames: { '#status': 'status' } } : {}),
      ExpressionAttributeValues: courseValues,
    },
  })
  const courseIndex = items.length - 1
  const deltas: Record<string, number> = {}
  for (const row of rows) {
    for (const [k, n] of Object.entries(statusCounterDeltas(row.replaces?.enrollment, row.enrollment)))
      deltas[k] = (deltas[k] ?? 0) + n
  }
  const counterItem = addUpdate(keys.counters(tenant), deltas)
  if (counterItem) items.push(counterItem)
  try {
    await transact(items)
  } catch (err) {
    if (!(err instanceof TransactionConditionFailed)) throw err
    const failed = new Map<number, RowRefusal>()
    // A changed pair or record is reported first, as the decision checks a live enrollment first.
    owner.forEach((row, index) => {
      if (err.failedAt(index)) failed.set(row, 'duplicate')
    })
    for (const [index, userRows] of userCheckAt) {
      if (!err.failedAt(index)) continue
      for (const row of userRows) if (!failed.has(row)) failed.set(row, 'user_inactive')
    }
    throw new EnrollmentGroupRefused(failed, err.failedAt(courseIndex))
  }
}

export class StaleEnrollmentError extends Error {}

/**
 * Replaces an enrollment with its next state if it is still as `current` says, moving the pair
 * guard, the course's seats and count, and the counters with it.
 * @throws StaleEnrollmentError when it changed meanwhile
 */
export async function saveEnrollment(
  tenant: TenantContext,
  current: Enrollment,
  next: Enrollment,
  extra: readonly TransactItem[],
): Promise<void> {
  const items: TransactItem[] = [
    {
      Put: {
        Item: enrollmentItem(tenant, next),
        ConditionExpression: 'updated_at = :expected AND #status = :status',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':expected': current.updatedAt, ':status': current.status },
      },
    },
  ]
  if (next.status !== current.status) {
    items.push({
      Update: {
        Key: keys.enrollmentPair(tenant, current.userId, current.courseId),
        UpdateExpression: 'SET #status = :status',
        ConditionExpression: 'enrollment_id = :id',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':status': next.status, ':id': current.id },
      },
    })
  }
  const courseDeltas = {
    enrollment_count: (counts(next.status) ? 1 : 0) - (counts(current.status) ? 1 : 0),
    seats_taken: (next.holdsSeat ? 1 : 0) - (current.holdsSeat ? 1 : 0),
  }
  const courseItem = addUpdate(keys.course(tenant, current.courseId), courseDeltas)
  if (courseItem) items.push(courseItem)
  const counterItem = addUpdate(keys.counters(tenant), statusCounterDeltas(current, next))
  if (counterItem) items.push(counterItem)
  items.push(...extra)
  try {
    await transact(items)
  } catch (err) {
    if (err instanceof TransactionConditionFailed && err.failedAt(0)) throw new StaleEnrollmentError()
    throw err
  }
}

export interface Certificate {
  readonly id: string
  readonly number: string
  readonly userId: string
  readonly courseId: string
  readonly enrollmentId: string
  readonly issuedAt: string
  readonly expiresAt: string | null
}

export function certificatePut(tenant: TenantContext, c: Certificate): TransactItem {
  return {
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
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  }
}
