/**
 * The enrollment engine: one implementation for POST /enrollments, POST /courses/{id}/enrollments,
 * bulk and the app. Reads are batched (users, courses, pairs, prerequisites: 100 keys a call);
 * writes go per course in transactions of up to 19 rows, or one row at a time where seats are
 * limited, so seat limits hold under any concurrency. Each write is conditioned on what its
 * decision read (pair status, replaced record's version, user still active, course), so a decision
 * overtaken by a concurrent change is refused rather than applied twice.
 */
import { randomUUID } from 'node:crypto'
import type { Course } from '../../domain/courses/course.ts'
import {
  decideEnrollment,
  type Enrollment,
  type EnrollmentChannel,
  type RefusalCode,
} from '../../domain/enrollments/enrollment.ts'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import { newEvent, newNotification } from '../../domain/events.ts'
import { accessExpiry, statusChanged } from '../../domain/enrollments/lifecycle.ts'
import { getCourse, getCourses } from '../../store/courses/courses-store.ts'
import {
  getEnrollments,
  getPairs,
  insertEnrollments,
  pairKey,
  type GroupRefusal,
  type NewEnrollment,
  type PairState,
  type Replaced,
  type RowRefusal,
} from '../../store/enrollments/enrollments-store.ts'
import { retryOnConflict } from '../../store/core/optimistic.ts'
import { WriteRefused } from '../../store/core/store-errors.ts'
import { batchGetUsers } from '../../store/users/users-store.ts'
import { mapLimit } from '../../concurrency.ts'

export interface EnrollRow {
  readonly userId: string
  readonly courseId: string
  readonly dueDate: string | null
}

export type RowResult = { readonly ok: Enrollment } | { readonly error: RefusalCode }

/**
 * A row takes 5 transaction items: pair, enrollment, event, notification and its user's active
 * check (the rows of one course are distinct users, and an item may appear once per transaction).
 * A reactivated row may take 6 more: its enrollment.status_changed event (0046), its old
 * completion's expiry month and its own creation day's course tally (decision 0023), the history
 * item that keeps its old activity (0024), and the hour histograms' days of its old enrollment and
 * completion (0026). A group adds the course, the
 * counters, the course's tally, the new rows' day tally and their enrollment day's hours: 19 new
 * rows make DynamoDB's 100.
 */
const MAX_TRANSACTION_ITEMS = 100
const GROUP_ITEMS = 5
const rowItems = (p: { readonly replaces: unknown }) => (p.replaces ? 11 : 5)
/** New rows (no reactivation) in one transaction: 19. */
export const ROWS_PER_TRANSACTION = Math.floor((MAX_TRANSACTION_ITEMS - GROUP_ITEMS) / 5)

/** Consecutive rows cut into groups whose items fit one transaction (in order; none empty). */
export function transactionGroups<T>(rows: readonly T[], itemsOf: (row: T) => number): T[][] {
  const groups: T[][] = []
  let current: T[] = []
  let items = GROUP_ITEMS
  for (const row of rows) {
    const n = itemsOf(row)
    if (current.length > 0 && items + n > MAX_TRANSACTION_ITEMS) {
      groups.push(current)
      current = []
      items = GROUP_ITEMS
    }
    current.push(row)
    items += n
  }
  if (current.length > 0) groups.push(current)
  return groups
}
const COURSES_IN_PARALLEL = 8

interface Planned {
  readonly index: number
  readonly row: EnrollRow
  readonly status: 'active' | 'pending_approval'
  readonly needsSeat: boolean
  readonly waitlistIfFull: boolean
  readonly replaces: Replaced | undefined
}

/** One course's rows being written: by which channel, when, and where each row's outcome goes. */
interface CourseWrite {
  readonly tenant: TenantContext
  readonly course: Course
  readonly channel: EnrollmentChannel
  readonly at: string
  readonly results: RowResult[]
}

function newRow(
  { course, channel, at }: CourseWrite,
  p: Planned,
  status: Enrollment['status'],
): NewEnrollment {
  const id = p.replaces?.enrollment.id ?? randomUUID()
  const enrollment: Enrollment = {
    id,
    userId: p.row.userId,
    courseId: p.row.courseId,
    status,
    dueDate: p.row.dueDate,
    completedAt: null,
    source: 'native',
    channel,
    createdAt: p.replaces?.enrollment.createdAt ?? at,
    enrolledAt: at,
    startedAt: null,
    updatedAt: at,
    progressPercent: 0,
    score: null,
    passFail: null,
    certificateId: null,
    certificateNumber: null,
    certificateExpiresAt: null,
    language: course.settings.language,
    timeSpentSeconds: 0,
    lastActivityAt: null,
    holdsSeat: status === 'active' && p.needsSeat,
    accessExpiresAt: status === 'active' ? accessExpiry(at, course.settings.accessDays) : null,
    modules: {},
    quizAttempts: [],
    // A reused record keeps its LTI score link (lti-ags-store.ts), so it keeps saying so.
    scoresLinked: p.replaces?.enrollment.scoresLinked ?? false,
  }
  const event = newEvent(
    'enrollment.created',
    { enrollmentId: id, userId: enrollment.userId, courseId: enrollment.courseId, status },
    at,
  )
  const notification = newNotification(
    'enrollment_confirmation',
    enrollment.userId,
    { enrollmentId: id, courseId: enrollment.courseId, courseTitle: course.title, status },
    at,
  )
  // A dropped or expired record coming back (the state table's reactivation) also says from what.
  const reactivated = p.replaces
    ? [statusChanged(p.replaces.enrollment.status, enrollment, 'reactivated', at)]
    : []
  return {
    enrollment,
    replaces: p.replaces,
    effects: { events: [event, ...reactivated], notifications: [notification] },
  }
}

/**
 * Why row `row` of a refused group was refused, if it was: a changed pair or record first, as the
 * decision checks a live enrollment before the user.
 */
function rowRefusal(refused: WriteRefused<GroupRefusal>, row: number): RowRefusal | undefined {
  if (refused.has({ row, kind: 'duplicate' })) return 'duplicate'
  if (refused.has({ row, kind: 'user_inactive' })) return 'user_inactive'
  return undefined
}

/** Rows that need a seat: one transaction each, in order, so the seat count decides each one. */
async function enrollSeated(w: CourseWrite, planned: readonly Planned[]): Promise<void> {
  for (const p of planned) w.results[p.index] = await enrollSeatedRow(w, p)
}

const courseRefused = (err: unknown): boolean => err instanceof WriteRefused && err.has('course')

/**
 * One row into a course with limited seats: active, taking a seat. When the course refuses, it is
 * read again to see why: unpublished meanwhile (not_published); else its seats were taken, so the
 * row is waitlisted where the course keeps a waitlist and refused as course_full otherwise.
 */
function enrollSeatedRow(w: CourseWrite, p: Planned): Promise<RowResult> {
  const { tenant, course } = w
  return retryOnConflict(
    async (attempt): Promise<RowResult> => {
      let status: Enrollment['status'] = 'active'
      if (attempt > 0) {
        const fresh = await getCourse(tenant, course.id, { consistent: true })
        if (!fresh || fresh.status !== 'published') return { error: 'not_published' }
        if (attempt > 1 || !p.waitlistIfFull) return { error: 'course_full' }
        status = 'waitlisted'
      }
      const row = newRow(w, p, status)
      try {
        await insertEnrollments(tenant, course.id, [row], { seatLimit: course.settings.seatLimit })
        return { ok: row.enrollment }
      } catch (err) {
        const refusal = err instanceof WriteRefused ? rowRefusal(err, 0) : undefined
        if (refusal) return { error: refusal }
        throw err
      }
    },
    // Active, then waitlisted; the third try only reads why the waitlisted row was refused.
    { tries: 3, isConflict: courseRefused },
  )
}

/** Rows that need no seat: grouped in transactions; a failing row is dropped and the rest retried. */
async function enrollGrouped(w: CourseWrite, planned: readonly Planned[]): Promise<void> {
  const { tenant, course, results } = w
  for (const initial of transactionGroups(planned, rowItems)) {
    let group = initial
    while (group.length > 0) {
      const rows = group.map((p) => newRow(w, p, p.status))
      try {
        await insertEnrollments(tenant, course.id, rows, { seatLimit: course.settings.seatLimit })
        group.forEach((p, k) => (results[p.index] = { ok: rows[k]?.enrollment as Enrollment }))
        break
      } catch (err) {
        if (!(err instanceof WriteRefused)) throw err
        const refusals = group.map((_, k) => rowRefusal(err, k))
        if (refusals.every((r) => r === undefined)) {
          if (!err.has('course')) throw err
          group.forEach((p) => (results[p.index] = { error: 'not_published' }))
          break
        }
        group.forEach((p, k) => {
          const refusal = refusals[k]
          if (refusal) results[p.index] = { error: refusal }
        })
        group = group.filter((_, k) => refusals[k] === undefined)
      }
    }
  }
}

/** Decides and writes every row; each row's outcome is independent of the others'. */
export async function enroll(
  tenant: TenantContext,
  rows: readonly EnrollRow[],
  channel: EnrollmentChannel,
  at = new Date().toISOString(),
): Promise<RowResult[]> {
  const [users, courses] = await Promise.all([
    batchGetUsers(tenant, [...new Set(rows.map((r) => r.userId))]),
    getCourses(
      tenant,
      rows.map((r) => r.courseId),
    ),
  ])
  const userById = new Map(users.map((u) => [u.id, u]))
  const courseById = new Map(courses.map((c) => [c.id, c]))
  const prerequisitePairs = rows.flatMap((r) =>
    (courseById.get(r.courseId)?.settings.prerequisites ?? []).map((courseId) => ({
      userId: r.userId,
      courseId,
    })),
  )
  const pairs = await getPairs(tenant, [...rows, ...prerequisitePairs])
  const replaced = new Map(
    (
      await getEnrollments(
        tenant,
        rows.flatMap((r) => pairs.get(pairKey(r.userId, r.courseId))?.enrollmentId ?? []),
      )
    ).map((e) => [e.id, e]),
  )
  const results: RowResult[] = new Array<RowResult>(rows.length)
  const seen = new Set<string>()
  const byCourse = new Map<string, Planned[]>()
  rows.forEach((row, index) => {
    const key = pairKey(row.userId, row.courseId)
    const existing: PairState | undefined = pairs.get(key)
    const completed = new Set(
      (courseById.get(row.courseId)?.settings.prerequisites ?? []).filter(
        (id) => pairs.get(pairKey(row.userId, id))?.status === 'completed',
      ),
    )
    const decision = seen.has(key)
      ? ({ kind: 'refuse', code: 'duplicate' } as const)
      : decideEnrollment({
          user: userById.get(row.userId),
          course: courseById.get(row.courseId),
          existing,
          completedCourseIds: completed,
          at,
        })
    seen.add(key)
    if (decision.kind === 'refuse') {
      results[index] = { error: decision.code }
      return
    }
    const replacedRecord = decision.reactivates ? replaced.get(decision.reactivates) : undefined
    const planned: Planned = {
      index,
      row,
      status: decision.status,
      needsSeat: decision.needsSeat,
      waitlistIfFull: decision.waitlistIfFull,
      // A pair whose record could not be read is written as new: its pair condition then fails (409).
      replaces: existing && replacedRecord ? { pair: existing, enrollment: replacedRecord } : undefined,
    }
    byCourse.set(row.courseId, [...(byCourse.get(row.courseId) ?? []), planned])
  })
  await mapLimit([...byCourse.entries()], COURSES_IN_PARALLEL, async ([courseId, planned]) => {
    const w: CourseWrite = { tenant, course: courseById.get(courseId) as Course, channel, at, results }
    await enrollSeated(
      w,
      planned.filter((p) => p.needsSeat),
    )
    await enrollGrouped(
      w,
      planned.filter((p) => !p.needsSeat),
    )
  })
  return results
}
