/**
 * A course's tally per UTC day of enrollment creation (`RPTCDAY#<courseId>#<yyyy-mm-dd>`,
 * decision 0023), moved by ADD in the transaction of every enrollment write beside the course's
 * whole tally: an enrollment's share never leaves its creation day, so a performance period's whole
 * days are one Query of the course's day items, and its partial days a key range of rpt4.
 */
import {
  addTallies,
  emptyTally,
  sumTallies,
  type CourseTally,
} from '../../domain/reports/course-performance.ts'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import { queryAll } from '../core/db.ts'
import { toTallied } from '../enrollments/enrollment-items.ts'
import { cond, queryExpression } from '../core/expression.ts'
import { keys } from '../core/keys.ts'
import { reportIndexes } from './report-indexes.ts'
import { tallyAdd, toCourseTally } from './course-report-items.ts'
import { addSteps } from '../core/transaction.ts'
import { dayTallyDeltas } from '../../domain/reports/period-days.ts'
import { writesByCourse, type Projection } from './projection.ts'

/** One ADD per course and day whose tally moves: new rows share their creation day, a reactivated row keeps its own. */
export const courseDayTallyProjection: Projection = {
  name: 'course day tallies',
  movesFor: (tenant, change) => ({
    steps: [...writesByCourse(change)].flatMap(([courseId, writes]) =>
      [...dayTallyDeltas(writes)].flatMap(([day, delta]) =>
        addSteps(keys.courseDayReport(tenant, courseId, day), tallyAdd(delta), {
          course_id: courseId,
          day,
          type: 'course_day_report',
        }),
      ),
    ),
  }),
}

/** The course's day tallies from `first` to `last` (`yyyy-mm-dd`, both included). */
export function courseDayTalliesParams(tenant: TenantContext, courseId: string, first: string, last: string) {
  const from = keys.courseDayReport(tenant, courseId, first)
  const to = keys.courseDayReport(tenant, courseId, last)
  return queryExpression({ key: cond.and(cond.eq('pk', from.pk), cond.between('sk', from.sk, to.sk)) })
}

export async function sumCourseDayTallies(
  tenant: TenantContext,
  courseId: string,
  first: string,
  last: string,
): Promise<CourseTally> {
  const items = await queryAll(courseDayTalliesParams(tenant, courseId, first, last))
  return items.map((i) => toCourseTally(i).tally).reduce((t, d) => addTallies(t, d), emptyTally)
}

/** The course's enrollments created from `from` to `to` (both included): rpt4. */
export function courseCreatedBetweenParams(
  tenant: TenantContext,
  courseId: string,
  from: string,
  to: string,
) {
  const index = reportIndexes.courseCreated
  return {
    IndexName: index.name,
    ...queryExpression({
      key: cond.and(
        cond.eq(index.pk, keys.courseCreatedIndexPk(tenant, courseId)),
        cond.between(index.sk, from, keys.sortKey(to, keys.missingDate)),
      ),
    }),
  }
}

export async function tallyCreatedBetween(
  tenant: TenantContext,
  courseId: string,
  from: string,
  to: string,
): Promise<CourseTally> {
  return sumTallies((await queryAll(courseCreatedBetweenParams(tenant, courseId, from, to))).map(toTallied))
}
