/**
 * From a report's validated parameters to the query its function takes, one mapping per report:
 * the GET route and the export worker both build their queries here, so a filter means the same
 * in a page and in a file. Paging and ordering stay with the caller (a page, or every row).
 */
import type * as v from 'valibot'
import type {
  ComplianceFilters,
  CompletionsFilters,
  CoursePerformanceFilters,
  EnrollmentsFilters,
  UserActivityFilters,
} from '../../domain/reports/queries.ts'

type Parsed<S extends v.GenericSchema> = v.InferOutput<S>

export const completionsScope = (f: Parsed<typeof CompletionsFilters>) => ({
  courseId: f.course_id,
  userId: f.user_id,
  groupId: f.group_id,
  completedAfter: f.completed_after,
  completedBefore: f.completed_before,
  passFail: f.pass_fail,
})

export const enrollmentsScope = (f: Parsed<typeof EnrollmentsFilters>) => ({
  courseId: f.course_id,
  groupId: f.group_id,
  status: f.status,
  enrolledAfter: f.enrolled_after,
  enrolledBefore: f.enrolled_before,
})

export const complianceScope = (f: Parsed<typeof ComplianceFilters>) => ({
  groupId: f.group_id,
  courseId: f.course_id,
  status: f.status,
  asOf: f.as_of,
})

export const userActivityScope = (f: Parsed<typeof UserActivityFilters>) => ({
  groupId: f.group_id,
  activeAfter: f.active_after,
  activeBefore: f.active_before,
  includeInactive: f.include_inactive ?? false,
  userType: f.user_type,
})

export const coursePerformanceScope = (f: Parsed<typeof CoursePerformanceFilters>) => ({
  courseId: f.course_id,
  category: f.category,
  periodStart: f.period_start,
  periodEnd: f.period_end,
})
