/**
 * The rows of an export: the same report, filters and order as the matching GET route, every row
 * instead of a page. Tenant-wide completions, enrollments and compliance (the large ones) read
 * their index page by page with the Query's cursor, only the row's attributes, a few pages ahead
 * of the writer (store/report-pages.ts). A report narrowed
 * to a course, user or group, compliance by status, user activity and course performance are built
 * the way their route builds them (the route holds the same set to sort and count it) and are then
 * handed out in order: their size is bounded by that scope, by the tenant's users or its courses.
 */
import * as v from 'valibot'
import { complianceRow } from '../../domain/reports/compliance.ts'
import { completionRow, enrollmentRow } from '../../domain/reports/enrollment-rows.ts'
import { exportSort } from '../../domain/reports/export-jobs.ts'
import { reportFilters } from '../../domain/reports/queries.ts'
import type { ReportRows, ReportType } from '../../domain/reports/rows.ts'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import { getCourseSummaries } from '../../store/courses/courses-store.ts'
import type { RowEnrollment } from '../../store/files/export-row-items.ts'
import { assignmentPages, completionPages, enrollmentPages } from '../../store/reports/report-pages.ts'
import {
  complianceScope,
  completionsScope,
  coursePerformanceScope,
  enrollmentsScope,
  userActivityScope,
} from '../reports/report-queries.ts'
import * as reports from '../reports/reports-service.ts'

/** Course titles met so far: an export of many pages reads each course's title once. */
class Titles {
  private readonly known = new Map<string, string>()
  constructor(private readonly tenant: TenantContext) {}
  async of(page: readonly RowEnrollment[]): Promise<(courseId: string) => string> {
    const missing = [...new Set(page.map((e) => e.courseId))].filter((id) => !this.known.has(id))
    if (missing.length > 0) {
      for (const c of await getCourseSummaries(this.tenant, missing)) this.known.set(c.id, c.title)
    }
    return (id) => this.known.get(id) ?? ''
  }
}

async function* rowsOfPages<R>(
  tenant: TenantContext,
  pages: AsyncIterable<RowEnrollment[]>,
  row: (e: RowEnrollment, title: string) => R,
): AsyncGenerator<R[]> {
  const titles = new Titles(tenant)
  for await (const page of pages) {
    const title = await titles.of(page)
    yield page.map((e) => row(e, title(e.courseId)))
  }
}

/** The rows of a listing built whole by its route's own function: `limit` of them at most. */
async function* rowsOfListing<R>(list: () => Promise<{ items: R[] }>): AsyncGenerator<R[]> {
  const { items } = await list()
  if (items.length > 0) yield items
}

/**
 * The rows in batches (a page read, or a listing), in order: an export hands 50,000 rows on
 * batch by batch, since each step of an async generator costs promises and turns of the
 * microtask queue that a row did not need (docs/decisions/0018).
 */
type Rows<R extends ReportType> = AsyncGenerator<ReportRows[R][]>

/**
 * Every row of the report (in the route's order, in batches), `limit` at most: pass one more
 * than the cap to learn whether the report has more. Filters are the validated strings of the job.
 */
export function reportRows<R extends ReportType>(
  tenant: TenantContext,
  type: R,
  filters: Readonly<Record<string, string>>,
  limit: number,
  now = new Date().toISOString(),
): Rows<R> {
  const all = { offset: 0, limit }
  const sort = exportSort(type, filters)
  const order = sort.order
  switch (type) {
    case 'completions': {
      const f = v.parse(reportFilters.completions, filters)
      const scoped = f.course_id || f.user_id || f.group_id
      if (!scoped && sort.by === 'completed_at') {
        const range = { after: f.completed_after, before: f.completed_before, passFail: f.pass_fail, order }
        return rowsOfPages(tenant, completionPages(tenant, range), completionRow) as Rows<R>
      }
      return rowsOfListing(() =>
        reports.completionsReport(tenant, {
          ...completionsScope(f),
          sortBy: sort.by === 'score' ? 'score' : 'completed_at',
          order,
          ...all,
        }),
      ) as Rows<R>
    }
    case 'enrollments': {
      const f = v.parse(reportFilters.enrollments, filters)
      if (!f.course_id && !f.group_id) {
        const range = { after: f.enrolled_after, before: f.enrolled_before, status: f.status, order }
        return rowsOfPages(tenant, enrollmentPages(tenant, range), enrollmentRow) as Rows<R>
      }
      return rowsOfListing(() =>
        reports.enrollmentsReport(tenant, {
          ...enrollmentsScope(f),
          order,
          ...all,
        }),
      ) as Rows<R>
    }
    case 'compliance': {
      const f = v.parse(reportFilters.compliance, filters)
      if (!f.course_id && !f.group_id && !f.status) {
        const asOf = f.as_of ?? now
        return rowsOfPages(tenant, assignmentPages(tenant), (e, title) =>
          complianceRow(e, title, asOf),
        ) as Rows<R>
      }
      return rowsOfListing(() =>
        reports.complianceReport(tenant, { ...complianceScope(f), ...all }, now),
      ) as Rows<R>
    }
    case 'user_activity': {
      const f = v.parse(reportFilters.user_activity, filters)
      return rowsOfListing(() =>
        reports.userActivityReport(tenant, { ...userActivityScope(f), ...all }, now),
      ) as Rows<R>
    }
    case 'course_performance': {
      const f = v.parse(reportFilters.course_performance, filters)
      return rowsOfListing(() =>
        reports.coursePerformanceReport(tenant, {
          ...coursePerformanceScope(f),
          ...all,
        }),
      ) as Rows<R>
    }
  }
  throw new Error(`Unknown report type ${String(type)}`)
}
