/**
 * The stored shape of an enrollment and its pair guard, each declared once (decision 0035), and
 * the tenant's enrollment counters: a malformed item fails naming its key instead of flowing on
 * as `undefined`.
 */
import * as v from 'valibot'
import { enrollmentStatuses, type Enrollment } from '../../domain/enrollments/enrollment.ts'
import type { Tallied } from '../../domain/reports/course-performance.ts'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import type { Item } from '../core/db.ts'
import { withDefault } from '../core/decode.ts'
import {
  decoderOf,
  defineEntity,
  field,
  optionalField,
  recordField,
  sparseField,
  sparseListField,
  type Field,
  type ValueOf,
} from '../core/entity.ts'
import { indexes, keys } from '../core/keys.ts'
import { enrollmentReportKeys } from '../reports/report-indexes.ts'

const Status = v.picklist(enrollmentStatuses)

/**
 * Empty attributes are not stored (optional and sparse fields): every enrollment page reads the
 * ALL entries of gsi1-5 and rpt1. The item is always written whole by a Put, so an attribute a
 * change empties leaves nothing behind. gsi1-3 hold the tenant's enrollments by enrolled_at,
 * due_date and completed_at, gsi4 a user's, gsi5 a course's; the report keys join them.
 */
const enrollmentEntity = defineEntity(
  'enrollment',
  {
    id: field('id', v.string()),
    userId: field('user_id', v.string()),
    courseId: field('course_id', v.string()),
    status: field('status', Status),
    dueDate: optionalField('due_date', v.string()),
    completedAt: optionalField('completed_at', v.string()),
    source: field('source', v.picklist(['native', 'import'])),
    channel: field('channel', v.picklist(['api', 'bulk', 'app', 'import'])),
    createdAt: field('created_at', v.string()),
    enrolledAt: field('enrolled_at', v.string()),
    startedAt: optionalField('started_at', v.string()),
    updatedAt: field('updated_at', v.string()),
    progressPercent: sparseField('progress_percent', v.number(), 0),
    score: optionalField('score', v.number()),
    passFail: optionalField('pass_fail', v.picklist(['pass', 'fail'])),
    certificateId: optionalField('certificate_id', v.string()),
    certificateNumber: optionalField('certificate_number', v.string()),
    certificateExpiresAt: optionalField('certificate_expires_at', v.string()),
    language: field('language', withDefault(v.string(), 'en')),
    timeSpentSeconds: sparseField('time_spent_seconds', v.number(), 0),
    lastActivityAt: optionalField('last_activity_at', v.string()),
    holdsSeat: sparseField('holds_seat', v.boolean(), false),
    accessExpiresAt: optionalField('access_expires_at', v.string()),
    modules: recordField('modules', {
      status: field('status', v.picklist(['not_started', 'in_progress', 'completed'])),
      score: optionalField('score', v.number()),
      timeSpentSeconds: sparseField('time_spent_seconds', v.number(), 0),
      startedAt: optionalField('started_at', v.string()),
      completedAt: optionalField('completed_at', v.string()),
      lastActivityAt: optionalField('last_activity_at', v.string()),
    }),
    quizAttempts: sparseListField('quiz_attempts', {
      moduleId: field('module_id', v.string()),
      raw: field('raw', v.number()),
      max: field('max', v.number()),
      scaled: field('scaled', v.number()),
      passed: field('passed', v.boolean()),
      gradedAt: field('graded_at', v.string()),
    }),
    // Written by the AGS link's own update (lti-ags-store.ts): every change carries it along.
    scoresLinked: sparseField('scores_linked', v.boolean(), false),
  },
  {
    key: (tenant: TenantContext, e) => keys.enrollment(tenant, e.id),
    derived: (tenant, e) => {
      const all = keys.enrollmentsIndexPk(tenant)
      const enrolled = keys.sortKey(e.enrolledAt, e.id)
      return {
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
    },
  },
)

/** @throws MalformedItem when the item is not an enrollment */
export const toEnrollment = (item: Item): Enrollment => enrollmentEntity.decode(item)

/** The whole item: key, every non-empty field, the index and report keys. */
export const enrollmentItem = (tenant: TenantContext, e: Enrollment): Item => enrollmentEntity.item(tenant, e)

const { status, completedAt, enrolledAt, quizAttempts } = enrollmentEntity.fields

/**
 * What a course tally reads of an enrollment: all the `rpt4` index holds (index-projections.ts).
 * @throws MalformedItem when the entry lacks it
 */
export const toTallied: (item: Item) => Tallied = decoderOf('enrollment', {
  status,
  completedAt,
  enrolledAt,
  quizAttempts,
})

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

/** The uniqueness guard of one (user, course), written with every status change of its enrollment. */
const pairEntity = defineEntity(
  'enrollment_pair',
  {
    userId: field('user_id', v.string()),
    courseId: field('course_id', v.string()),
    enrollmentId: field('enrollment_id', v.string()),
    status: field('status', Status),
  },
  { key: (tenant: TenantContext, p) => keys.enrollmentPair(tenant, p.userId, p.courseId) },
)

/** The current enrollment of one (user, course): what the uniqueness guard holds. */
export type PairState = ValueOf<typeof pairEntity.fields>

/** @throws MalformedItem when the item is not a pair guard */
export const toPair = (item: Item): PairState => pairEntity.decode(item)

/** The pair guard of `e`, with its index keys while `e` waits (since `since`) or its access may end. */
export function pairItem(tenant: TenantContext, e: Enrollment, since: string): Item {
  const pair = { userId: e.userId, courseId: e.courseId, enrollmentId: e.id, status: e.status }
  return { ...pairEntity.item(tenant, pair), ...pairIndexKeys(tenant, e, since).set }
}

const count = (attribute: string) => field(attribute, withDefault(v.number(), 0))

/**
 * The enrollment counters of the tenant's counters item (other entities keep theirs there too):
 * `enrollments_status_<status>` per status, moved with every status change.
 */
const totals = decoderOf('counters', {
  total: count('enrollments_total'),
  completions: count('completions_total'),
})
const byStatus = decoderOf(
  'counters',
  Object.fromEntries(enrollmentStatuses.map((s) => [s, count(`enrollments_status_${s}`)])) as Record<
    Enrollment['status'],
    Field<number>
  >,
)

export interface EnrollmentCounters {
  readonly total: number
  readonly completions: number
  readonly byStatus: Readonly<Record<Enrollment['status'], number>>
}

/** An absent counters item (a tenant without enrollments yet) reads as zeros. */
export function toEnrollmentCounters(item: Item | undefined): EnrollmentCounters {
  return { ...totals(item ?? {}), byStatus: byStatus(item ?? {}) }
}
