/**
 * The five reports' rows, field for field as document 001 lists them ("Report rows"), and their
 * columns in that order: the JSON rows, the export files and the OpenAPI document share this one
 * declaration (the row types are inferred from the schemas).
 */
import * as v from 'valibot'

const nullableString = v.nullable(v.string())
const nullableNumber = v.nullable(v.number())

export const CompletionRowSchema = v.object({
  enrollment_id: v.string(),
  user_id: v.string(),
  course_id: v.string(),
  course_title: v.string(),
  completed_at: v.string(),
  language: v.string(),
  score: nullableNumber,
  pass_fail: v.nullable(v.picklist(['pass', 'fail'])),
  time_spent_seconds: v.number(),
  certificate_id: nullableString,
})
export type CompletionRow = v.InferOutput<typeof CompletionRowSchema>

export const EnrollmentRowSchema = v.object({
  enrollment_id: v.string(),
  user_id: v.string(),
  course_id: v.string(),
  course_title: v.string(),
  status: v.string(),
  enrolled_at: v.string(),
  due_date: nullableString,
  completed_at: nullableString,
  source: v.picklist(['native', 'import']),
  language: v.string(),
})
export type EnrollmentRow = v.InferOutput<typeof EnrollmentRowSchema>

export const complianceStatuses = ['compliant', 'non_compliant', 'expiring_soon'] as const
export type ComplianceStatus = (typeof complianceStatuses)[number]

export const ComplianceRowSchema = v.object({
  user_id: v.string(),
  course_id: v.string(),
  course_title: v.string(),
  compliance_status: v.picklist(complianceStatuses),
  last_completion_date: nullableString,
  certificate_expires_at: nullableString,
  days_until_expiry: nullableNumber,
})
export type ComplianceRow = v.InferOutput<typeof ComplianceRowSchema>

export const UserActivityRowSchema = v.object({
  user_id: v.string(),
  last_login_at: nullableString,
  /** Logins are not counted (only the last one is kept): always null, as the spec says. */
  total_logins: v.null(),
  total_time_spent_seconds: v.number(),
  courses_started: v.number(),
  courses_completed: v.number(),
  period_start: v.string(),
  period_end: v.string(),
})
export type UserActivityRow = v.InferOutput<typeof UserActivityRowSchema>

export const CoursePerformanceRowSchema = v.object({
  course_id: v.string(),
  course_title: v.string(),
  total_enrollments: v.number(),
  completions: v.number(),
  completion_rate_percent: nullableNumber,
  average_score: nullableNumber,
  pass_rate_percent: nullableNumber,
  average_time_to_complete_seconds: nullableNumber,
  drop_off_rate_percent: nullableNumber,
})
export type CoursePerformanceRow = v.InferOutput<typeof CoursePerformanceRowSchema>

export const reportTypes = [
  'completions',
  'enrollments',
  'compliance',
  'user_activity',
  'course_performance',
] as const
export type ReportType = (typeof reportTypes)[number]

export interface ReportRows {
  completions: CompletionRow
  enrollments: EnrollmentRow
  compliance: ComplianceRow
  user_activity: UserActivityRow
  course_performance: CoursePerformanceRow
}

/** How a column is typed in a spreadsheet: text, a number, or a date (ISO timestamps). */
export type ColumnKind = 'text' | 'number' | 'date'

export const reportColumns: { [R in ReportType]: readonly (readonly [keyof ReportRows[R], ColumnKind])[] } = {
  completions: [
    ['enrollment_id', 'text'],
    ['user_id', 'text'],
    ['course_id', 'text'],
    ['course_title', 'text'],
    ['completed_at', 'date'],
    ['language', 'text'],
    ['score', 'number'],
    ['pass_fail', 'text'],
    ['time_spent_seconds', 'number'],
    ['certificate_id', 'text'],
  ],
  enrollments: [
    ['enrollment_id', 'text'],
    ['user_id', 'text'],
    ['course_id', 'text'],
    ['course_title', 'text'],
    ['status', 'text'],
    ['enrolled_at', 'date'],
    ['due_date', 'date'],
    ['completed_at', 'date'],
    ['source', 'text'],
    ['language', 'text'],
  ],
  compliance: [
    ['user_id', 'text'],
    ['course_id', 'text'],
    ['course_title', 'text'],
    ['compliance_status', 'text'],
    ['last_completion_date', 'date'],
    ['certificate_expires_at', 'date'],
    ['days_until_expiry', 'number'],
  ],
  user_activity: [
    ['user_id', 'text'],
    ['last_login_at', 'date'],
    ['total_logins', 'number'],
    ['total_time_spent_seconds', 'number'],
    ['courses_started', 'number'],
    ['courses_completed', 'number'],
    ['period_start', 'date'],
    ['period_end', 'date'],
  ],
  course_performance: [
    ['course_id', 'text'],
    ['course_title', 'text'],
    ['total_enrollments', 'number'],
    ['completions', 'number'],
    ['completion_rate_percent', 'number'],
    ['average_score', 'number'],
    ['pass_rate_percent', 'number'],
    ['average_time_to_complete_seconds', 'number'],
    ['drop_off_rate_percent', 'number'],
  ],
}
