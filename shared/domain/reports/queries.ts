/**
 * The reports' query parameters (document 001, "Reports"): one valibot schema per report, used by
 * the GET routes and by the `filters` of an export job, so both accept exactly the same values and
 * refuse a bad one naming the field. page, per_page and sort are the list conventions' (list-query).
 */
import * as v from 'valibot'
import { enrollmentStatuses } from '../enrollments/enrollment.ts'
import { userTypes } from '../users/user.ts'
import { QueryBoolean, Timestamp, Uuid } from '../validation.ts'
import { complianceStatuses } from './compliance.ts'
import type { ReportType } from './rows.ts'

const oneOf = <const T extends readonly [string, ...string[]]>(values: T) =>
  v.picklist(values, `must be one of ${values.join(', ')}`)

export const CompletionsFilters = v.object({
  course_id: v.optional(Uuid),
  user_id: v.optional(Uuid),
  group_id: v.optional(Uuid),
  completed_after: v.optional(Timestamp),
  completed_before: v.optional(Timestamp),
  pass_fail: v.optional(oneOf(['pass', 'fail'])),
})
export const completionSorts = ['completed_at', 'score'] as const

export const EnrollmentsFilters = v.object({
  course_id: v.optional(Uuid),
  group_id: v.optional(Uuid),
  status: v.optional(oneOf(enrollmentStatuses)),
  enrolled_after: v.optional(Timestamp),
  enrolled_before: v.optional(Timestamp),
})
/** The enrollments report is ordered by enrollment date only: sort_order, no sort_by. */
export const enrollmentReportSorts = ['enrolled_at'] as const

export const ComplianceFilters = v.object({
  group_id: v.optional(Uuid),
  course_id: v.optional(Uuid),
  status: v.optional(oneOf(complianceStatuses)),
  as_of: v.optional(Timestamp),
})

export const UserActivityFilters = v.object({
  group_id: v.optional(Uuid),
  active_after: v.optional(Timestamp),
  active_before: v.optional(Timestamp),
  include_inactive: v.optional(QueryBoolean),
  user_type: v.optional(oneOf(userTypes)),
})

/** `category` is the category's exact name, as on the courses listing. */
export const CoursePerformanceFilters = v.object({
  course_id: v.optional(Uuid),
  category: v.optional(v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(200))),
  period_start: v.optional(Timestamp),
  period_end: v.optional(Timestamp),
})

export const reportFilters = {
  completions: CompletionsFilters,
  enrollments: EnrollmentsFilters,
  compliance: ComplianceFilters,
  user_activity: UserActivityFilters,
  course_performance: CoursePerformanceFilters,
} as const satisfies Record<ReportType, v.GenericSchema>
