/**
 * The five reports' rows, field for field as document 001 lists them ("Report rows"), and their
 * columns in that order: the JSON rows and the export files share this one declaration.
 */

export interface CompletionRow {
  readonly enrollment_id: string
  readonly user_id: string
  readonly course_id: string
  readonly course_title: string
  readonly completed_at: string
  readonly language: string
  readonly score: number | null
  readonly pass_fail: 'pass' | 'fail' | null
  readonly time_spent_seconds: number
  readonly certificate_id: string | null
}

export interface EnrollmentRow {
  readonly enrollment_id: string
  readonly user_id: string
  readonly course_id: string
  readonly course_title: string
  readonly status: string
  readonly enrolled_at: string
  readonly due_date: string | null
  readonly completed_at: string | null
  readonly source: 'native' | 'import'
  readonly language: string
}

export type ComplianceStatus = 'compliant' | 'non_compliant' | 'expiring_soon'

export interface ComplianceRow {
  readonly user_id: string
  readonly course_id: string
  readonly course_title: string
  readonly compliance_status: ComplianceStatus
  readonly last_completion_date: string | null
  readonly certificate_expires_at: string | null
  readonly days_until_expiry: number | null
}

export interface UserActivityRow {
  readonly user_id: string
  readonly last_login_at: string | null
  /** Logins are not counted (only the last one is kept): always null, as the spec says. */
  readonly total_logins: null
  readonly total_time_spent_seconds: number
  readonly courses_started: number
  readonly courses_completed: number
  readonly period_start: string
  readonly period_end: string
}

export interface CoursePerformanceRow {
  readonly course_id: string
  readonly course_title: string
  readonly total_enrollments: number
  readonly completions: number
  readonly completion_rate_percent: number | null
  readonly average_score: number | null
  readonly pass_rate_percent: number | null
  readonly average_time_to_complete_seconds: number | null
  readonly drop_off_rate_percent: number | null
}

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
