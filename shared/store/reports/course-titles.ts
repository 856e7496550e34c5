/**
 * Course titles for report rows (decision 0026, "Titles"). Each course's report tally
 * (`RPTCOURSE#<id>`, ~250 bytes) also holds its title, set when the course is created or renamed,
 * so a page naming many courses reads every tally in one Query (about 30 to the RCU) where a
 * BatchGet of the course items costs half an RCU a course. A tenant with many courses for the
 * titles wanted, and any course whose tally holds no title yet, is read by key as before.
 */
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import { getCounters } from '../tenants/counters.ts'
import { getCourseSummaries } from '../courses/courses-store.ts'
import { queryAll } from '../core/db.ts'
import { allCourseTalliesParams } from './course-report-items.ts'

/** Tallies a Query reads for the price of one course read by key (half an RCU): ~15 with margin. */
const TALLIES_PER_TITLE = 15

export async function courseTitles(
  tenant: TenantContext,
  courseIds: readonly string[],
): Promise<Map<string, string>> {
  const ids = [...new Set(courseIds)]
  if (ids.length === 0) return new Map()
  const titles = new Map<string, string>()
  const courses = (await getCounters(tenant)).courses_total ?? Infinity
  if (ids.length > 1 && courses <= TALLIES_PER_TITLE * ids.length) {
    for (const item of await queryAll(allCourseTalliesParams(tenant))) {
      if (typeof item.course_id === 'string' && typeof item.title === 'string')
        titles.set(item.course_id, item.title)
    }
  }
  const missing = ids.filter((id) => !titles.has(id))
  if (missing.length > 0) for (const c of await getCourseSummaries(tenant, missing)) titles.set(c.id, c.title)
  return titles
}
