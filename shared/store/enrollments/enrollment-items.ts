/**
 * The stored shape of an enrollment, its pair guard and the tenant's enrollment counters: one
 * valibot schema each, read through decodeItem, so a malformed item fails naming its key instead
 * of flowing on as `undefined`; and the writer of the enrollment item with its five index keys.
 */
import * as v from 'valibot'
import { enrollmentStatuses, type Enrollment } from '../../domain/enrollments/enrollment.ts'
import type { Tallied } from '../../domain/reports/course-performance.ts'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import type { Item } from '../core/db.ts'
import { decodeItem, nullable, unlessEmpty, withDefault } from '../core/decode.ts'
import { indexes, keys } from '../core/keys.ts'
import { enrollmentReportKeys } from '../reports/report-indexes.ts'

const Status = v.picklist(enrollmentStatuses)

const ModuleProgressItem = v.object({
  status: v.picklist(['not_started', 'in_progress', 'completed']),
  score: nullable(v.number()),
  time_spent_seconds: withDefault(v.number(), 0),
  started_at: nullable(v.string()),
  completed_at: nullable(v.string()),
  last_activity_at: nullable(v.string()),
})

const QuizAttemptItem = v.object({
  module_id: v.string(),
  raw: v.number(),
  max: v.number(),
  scaled: v.number(),
  passed: v.boolean(),
  graded_at: v.string(),
})

const EnrollmentItem = v.object({
  id: v.string(),
  user_id: v.string(),
  course_id: v.string(),
  status: Status,
  due_date: nullable(v.string()),
  completed_at: nullable(v.string()),
  source: v.picklist(['native', 'import']),
  channel: v.picklist(['api', 'bulk', 'app', 'import']),
  created_at: v.string(),
  enrolled_at: v.string(),
  started_at: nullable(v.string()),
  updated_at: v.string(),
  progress_percent: withDefault(v.number(), 0),
  score: nullable(v.number()),
  pass_fail: nullable(v.picklist(['pass', 'fail'])),
  certificate_id: nullable(v.string()),
  certificate_number: nullable(v.string()),
  certificate_expires_at: nullable(v.string()),
  language: withDefault(v.string(), 'en'),
  time_spent_seconds: withDefault(v.number(), 0),
  last_activity_at: nullable(v.string()),
  holds_seat: withDefault(v.boolean(), false),
  access_expires_at: nullable(v.string()),
  modules: withDefault(v.record(v.string(), ModuleProgressItem), {}),
  quiz_attempts: withDefault(v.array(QuizAttemptItem), []),
})

const quizAttempts = (list: readonly v.InferOutput<typeof QuizAttemptItem>[]): Enrollment['quizAttempts'] =>
  list.map((a) => ({
    moduleId: a.module_id,
    raw: a.raw,
    max: a.max,
    scaled: a.scaled,
    passed: a.passed,
    gradedAt: a.graded_at,
  }))

/** @throws MalformedItem when the item is not an enrollment */
export function toEnrollment(item: Item): Enrollment {
  const i = decodeItem('enrollment', EnrollmentItem, item)
  return {
    id: i.id,
    userId: i.user_id,
    courseId: i.course_id,
    status: i.status,
    dueDate: i.due_date,
    completedAt: i.completed_at,
    source: i.source,
    channel: i.channel,
    createdAt: i.created_at,
    enrolledAt: i.enrolled_at,
    startedAt: i.started_at,
    updatedAt: i.updated_at,
    progressPercent: i.progress_percent,
    score: i.score,
    passFail: i.pass_fail,
    certificateId: i.certificate_id,
    certificateNumber: i.certificate_number,
    certificateExpiresAt: i.certificate_expires_at,
    language: i.language,
    timeSpentSeconds: i.time_spent_seconds,
    lastActivityAt: i.last_activity_at,
    holdsSeat: i.holds_seat,
    accessExpiresAt: i.access_expires_at,
    modules: Object.fromEntries(
      Object.entries(i.modules).map(([id, m]) => [
        id,
        {
          status: m.status,
          score: m.score,
          timeSpentSeconds: m.time_spent_seconds,
          startedAt: m.started_at,
          completedAt: m.completed_at,
          lastActivityAt: m.last_activity_at,
        },
      ]),
    ),
    quizAttempts: quizAttempts(i.quiz_attempts),
  }
}

/** What a course tally reads of an enrollment: all the `rpt4` index holds (index-projections.ts). */
const TalliedItem = v.pick(EnrollmentItem, ['status', 'completed_at', 'enrolled_at', 'quiz_attempts'])

/** @throws MalformedItem when the entry lacks what a course tally reads */
export function toTallied(item: Item): Tallied {
  const i = decodeItem('enrollment', TalliedItem, item)
  return {
    status: i.status,
    completedAt: i.completed_at,
    enrolledAt: i.enrolled_at,
    quizAttempts: quizAttempts(i.quiz_attempts),
  }
}

const storedModule = (p: Enrollment['modules'][string]): Item => ({
  status: p.status,
  score: unlessEmpty(p.score),
  time_spent_seconds: unlessEmpty(p.timeSpentSeconds, p.timeSpentSeconds === 0),
  started_at: unlessEmpty(p.startedAt),
  completed_at: unlessEmpty(p.completedAt),
  last_activity_at: unlessEmpty(p.lastActivityAt),
})

/**
 * The whole item, written by a Put, so an attribute a change empties leaves nothing behind. Empty
 * ones are not stored (unlessEmpty): every enrollment page reads the ALL entries of gsi1-5 and rpt1.
 */
export function enrollmentItem(tenant: TenantContext, e: Enrollment): Item {
  const all = keys.enrollmentsIndexPk(tenant)
  const enrolled = keys.sortKey(e.enrolledAt, e.id)
  const modules = Object.entries(e.modules)
  return {
    ...keys.enrollment(tenant, e.id),
    type: 'enrollment',
    id: e.id,
    user_id: e.userId,
    course_id: e.courseId,
    status: e.status,
    due_date: unlessEmpty(e.dueDate),
    completed_at: unlessEmpty(e.completedAt),
    source: e.source,
    channel: e.channel,
    created_at: e.createdAt,
    enrolled_at: e.enrolledAt,
    started_at: unlessEmpty(e.startedAt),
    updated_at: e.updatedAt,
    progress_percent: unlessEmpty(e.progressPercent, e.progressPercent === 0),
    score: unlessEmpty(e.score),
    pass_fail: unlessEmpty(e.passFail),
    certificate_id: unlessEmpty(e.certificateId),
    certificate_number: unlessEmpty(e.certificateNumber),
    certificate_expires_at: unlessEmpty(e.certificateExpiresAt),
    language: e.language,
    time_spent_seconds: unlessEmpty(e.timeSpentSeconds, e.timeSpentSeconds === 0),
    last_activity_at: unlessEmpty(e.lastActivityAt),
    holds_seat: unlessEmpty(e.holdsSeat, !e.holdsSeat),
    access_expires_at: unlessEmpty(e.accessExpiresAt),
    modules: unlessEmpty(
      Object.fromEntries(modules.map(([id, p]) => [id, storedModule(p)])),
      modules.length === 0,
    ),
    quiz_attempts: unlessEmpty(
      e.quizAttempts.map((a) => ({
        module_id: a.moduleId,
        raw: a.raw,
        max: a.max,
        scaled: a.scaled,
        passed: a.passed,
        graded_at: a.gradedAt,
      })),
      e.quizAttempts.length === 0,
    ),
    [indexes.gsi1.pk]: all,
    [indexes.gsi1.sk]: enrolled,
    [indexes.gsi2.pk]: all,
    [indexes.gsi2.sk]: keys.sortKey(e.dueDate ?? keys.missingDate, e.id),
    [indexes.gsi3.pk]: all,
    [indexes.gsi3.sk]: keys.sortKey(e.completedAt ?? keys.missingDate, e.id),
    [indexes.gsi4.pk]: keys.userEnrollmentsPk(tenant, e.userId),
    [indexes.gsi4.sk]: enrolled,
    [indexes.gsi5.pk]: keys.courseEnrollmentsPk(tenant, e.courseId),
    [indexes.gsi5.sk]: enrolled,
    ...enrollmentReportKeys(tenant, e),
  }
}

/**
 * The pair's sparse index keys, derived from the enrollment it points at: in the tenant's
 * access-expiry index (gsi1) while active with an end of access, in its course's waitlist (gsi2,
 * ordered by `since`, when it joined) while waitlisted, in neither otherwise. Every write of the
 * pair sets or removes them, so an index holds exactly the candidates of its job.
 */
export function pairIndexKeys(
  tenant: TenantContext,
  e: Enrollment,
  since: string,
): { readonly set: Item; readonly remove: readonly string[] } {
  const set: Item = {}
  const remove: string[] = []
  if (e.status === 'active' && e.accessExpiresAt !== null) {
    set[indexes.gsi1.pk] = keys.accessExpiryIndexPk(tenant)
    set[indexes.gsi1.sk] = keys.sortKey(e.accessExpiresAt, e.id)
  } else remove.push(indexes.gsi1.pk, indexes.gsi1.sk)
  if (e.status === 'waitlisted') {
    set[indexes.gsi2.pk] = keys.waitlistIndexPk(tenant, e.courseId)
    set[indexes.gsi2.sk] = keys.sortKey(since, e.id)
  } else remove.push(indexes.gsi2.pk, indexes.gsi2.sk)
  return { set, remove }
}

/** The enrollment id at the end of a pair's index sort key (`<time>#<enrollment id>`). */
export const enrollmentIdOfIndexKey = (sortKey: string): string => sortKey.slice(sortKey.lastIndexOf('#') + 1)

const PairItem = v.object({
  user_id: v.string(),
  course_id: v.string(),
  enrollment_id: v.string(),
  status: Status,
})

/** The current enrollment of one (user, course): what the uniqueness guard holds. */
export interface PairState {
  readonly userId: string
  readonly courseId: string
  readonly enrollmentId: string
  readonly status: Enrollment['status']
}

export function toPair(item: Item): PairState {
  const i = decodeItem('enrollment pair', PairItem, item)
  return { userId: i.user_id, courseId: i.course_id, enrollmentId: i.enrollment_id, status: i.status }
}

const count = withDefault(v.number(), 0)

/**
 * The enrollment counters of the tenant's counters item (other entities keep theirs there too):
 * `enrollments_status_<status>` per status, moved with every status change.
 */
const EnrollmentCountersItem = v.object({
  enrollments_total: count,
  completions_total: count,
  enrollments_status_active: count,
  enrollments_status_completed: count,
  enrollments_status_dropped: count,
  enrollments_status_expired: count,
  enrollments_status_waitlisted: count,
  enrollments_status_pending_approval: count,
})

export interface EnrollmentCounters {
  readonly total: number
  readonly completions: number
  readonly byStatus: Readonly<Record<Enrollment['status'], number>>
}

/** An absent counters item (a tenant without enrollments yet) reads as zeros. */
export function toEnrollmentCounters(item: Item | undefined): EnrollmentCounters {
  const i = decodeItem('counters', EnrollmentCountersItem, item ?? {})
  return {
    total: i.enrollments_total,
    completions: i.completions_total,
    byStatus: {
      active: i.enrollments_status_active,
      completed: i.enrollments_status_completed,
      dropped: i.enrollments_status_dropped,
      expired: i.enrollments_status_expired,
      waitlisted: i.enrollments_status_waitlisted,
      pending_approval: i.enrollments_status_pending_approval,
    },
  }
}
