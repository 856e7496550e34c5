/**
 * The reports' query parameters (document 001, "Reports"): one valibot schema per report, used by
 * the GET routes and by the `filters` of an export job, so both accept exactly the same values and
 * refuse a bad one naming the field. page, per_page and sort are the list conventions' (list-query).
 */
import * as v from 'valibot'
import { enrollmentStatuses } from '../enrollments/enrollment.ts'
import { userTypes } from '../users/user.ts'
import { textRules, textChecks } from '../text-rules.ts'
import { withRange, QueryBoolean, Timestamp, Uuid } from '../validation.ts'
import { complianceStatuses } from './compliance.ts'
import type { ReportType } from './rows.ts'

const oneOf = <const T extends readonly [string, ...string[]]>(values: T) =>
  v.picklist(values, `must be one of ${values.join(', ')}`)

export const CompletionsFilters = withRange(
  v.object({
    course_id: v.optional(Uuid),
    user_id: v.optional(Uuid),
    group_id: v.optional(Uuid),
    completed_after: v.optional(Timestamp),
    completed_before: v.optional(Timestamp),
    pass_fail: v.optional(oneOf(['pass', 'fail'])),
  }),
  'completed_after',
  'completed_before',
  'exclusive',
)
export const completionSorts = ['completed_at', 'score'] as const

export const EnrollmentsFilters = withRange(
  v.object({
    course_id: v.optional(Uuid),
    group_id: v.optional(Uuid),
    status: v.optional(oneOf(enrollmentStatuses)),
    enrolled_after: v.optional(Timestamp),
    enrolled_before: v.optional(Timestamp),
  }),
  'enrolled_after',
  'enrolled_before',
  'exclusive',
)
/** The enrollments report is ordered by enrollment date only: sort_order, no sort_by. */
export const enrollmentReportSorts = ['enrolled_at'] as const

export const ComplianceFilters = v.object({
  group_id: v.optional(Uuid),
  course_id: v.optional(Uuid),
  status: v.optional(oneOf(complianceStatuses)),
  as_of: v.optional(Timestamp),
})

/** The period's ends are both in (decision 0022), so they may be equal. */
export const UserActivityFilters = withRange(
  v.object({
    group_id: v.optional(Uuid),
    active_after: v.optional(Timestamp),
    active_before: v.optional(Timestamp),
    include_inactive: v.optional(QueryBoolean),
    user_type: v.optional(oneOf(userTypes)),
  }),
  'active_after',
  'active_before',
  'inclusive',
)

/**
 * `category` is the category's exact name, as on the courses listing: a name under the category
 * names' own rules (no control characters). The period's ends are both in, so they may be equal.
 */
export const CoursePerformanceFilters = withRange(
  v.object({
    course_id: v.optional(Uuid),
    category: v.optional(
      v.pipe(v.string(), v.minLength(1, 'must not be empty'), ...textChecks(textRules.categoryName)),
    ),
    period_start: v.optional(Timestamp),
    period_end: v.optional(Timestamp),
  }),
  'period_start',
  'period_end',
  'inclusive',
)

export const reportFilters = {
  completions: CompletionsFilters,
  enrollments: EnrollmentsFilters,
  compliance: ComplianceFilters,
  user_activity: UserActivityFilters,
  course_performance: CoursePerformanceFilters,
} as const satisfies Record<ReportType, v.GenericSchema>
