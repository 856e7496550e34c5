/** Route group `reports`: the five reports (document 001, "Reports") and export jobs (exports.ts). */
import {
  ComplianceFilters,
  completionSorts,
  CompletionsFilters,
  CoursePerformanceFilters,
  enrollmentReportSorts,
  EnrollmentsFilters,
  UserActivityFilters,
} from '../../shared/domain/reports/queries.ts'
import { parseOrThrow } from '../../shared/domain/validation.ts'
import { listMeta, paging, sorting } from '../../shared/http/list-query.ts'
import { ok } from '../../shared/http/responses.ts'
import { route } from '../../shared/http/route.ts'
import { httpStack } from '../../shared/http/stack.ts'
import {
  complianceScope,
  completionsScope,
  coursePerformanceScope,
  enrollmentsScope,
  userActivityScope,
} from '../../shared/services/reports/report-queries.ts'
import * as reports from '../../shared/services/reports/reports-service.ts'
import { getExport, queueExport } from './exports.ts'
import { usage } from './usage.ts'

export { getExport, queueExport, usage }

export const completions = route('GET /api/v1/reports/completions', async ({ tenant, query }) => {
  const f = parseOrThrow(CompletionsFilters, query)
  const page = paging(query)
  const sort = sorting(query, completionSorts, { by: 'completed_at', order: 'desc' })
  const { items, total } = await reports.completionsReport(tenant, {
    ...completionsScope(f),
    sortBy: sort.by,
    order: sort.order,
    offset: page.offset,
    limit: page.perPage,
  })
  return ok(items, listMeta(page, total))
})

export const enrollments = route('GET /api/v1/reports/enrollments', async ({ tenant, query }) => {
  const f = parseOrThrow(EnrollmentsFilters, query)
  const page = paging(query)
  const sort = sorting(query, enrollmentReportSorts, { by: 'enrolled_at', order: 'desc' })
  const { items, total } = await reports.enrollmentsReport(tenant, {
    ...enrollmentsScope(f),
    order: sort.order,
    offset: page.offset,
    limit: page.perPage,
  })
  return ok(items, listMeta(page, total))
})

export const compliance = route('GET /api/v1/reports/compliance', async ({ tenant, query }) => {
  const f = parseOrThrow(ComplianceFilters, query)
  const page = paging(query)
  const { items, total } = await reports.complianceReport(tenant, {
    ...complianceScope(f),
    offset: page.offset,
    limit: page.perPage,
  })
  return ok(items, listMeta(page, total))
})

export const userActivity = route('GET /api/v1/reports/users/activity', async ({ tenant, query }) => {
  const f = parseOrThrow(UserActivityFilters, query)
  const page = paging(query)
  const { items, total } = await reports.userActivityReport(tenant, {
    ...userActivityScope(f),
    offset: page.offset,
    limit: page.perPage,
  })
  return ok(items, listMeta(page, total))
})

export const coursePerformance = route(
  'GET /api/v1/reports/courses/performance',
  async ({ tenant, query }) => {
    const f = parseOrThrow(CoursePerformanceFilters, query)
    const page = paging(query)
    const { items, total } = await reports.coursePerformanceReport(tenant, {
      ...coursePerformanceScope(f),
      offset: page.offset,
      limit: page.perPage,
    })
    return ok(items, listMeta(page, total))
  },
)

export const handler = httpStack([
  completions,
  enrollments,
  compliance,
  userActivity,
  coursePerformance,
  queueExport,
  getExport,
  usage,
])
