/**
 * A course's report tally (`RPTCOURSE#<courseId>`): the sums course performance divides, moved by
 * ADD in the transaction of every enrollment write (enrollments-store), so the report reads one
 * item per course instead of the course's enrollments. The tallies share the tenant's partition
 * (`RPTCOURSE#` sort keys), so all of them are also one Query, far cheaper than a BatchGetItem of a
 * page of them while the tenant has few courses (a Query is billed by size, about 40 small tallies
 * per half RCU; a BatchGetItem half an RCU per item).
 */
import * as v from 'valibot'
import {
  addTallies,
  emptyTally,
  tallyDelta,
  tallyFields,
  type CourseTally,
} from '../../domain/reports/course-performance.ts'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import { batchGet, queryAll, type Item } from '../core/db.ts'
import { withDefault } from '../core/decode.ts'
import { defineEntity, field } from '../core/entity.ts'
import { cond, queryExpression, updateExpression } from '../core/expression.ts'
import { keys } from '../core/keys.ts'
import { addSteps, type Step } from '../core/transaction.ts'
import { writesByCourse, type Projection } from './projection.ts'

const count = (attribute: string) => field(attribute, withDefault(v.number(), 0))

/** The tally as stored: never put whole (ADD moves it), read whole; a sum not yet moved reads 0. */
const tallyEntity = defineEntity(
  'course_report',
  {
    courseId: field('course_id', v.string()),
    enrollments: count('enrollments'),
    completions: count('completions'),
    dropOffs: count('drop_offs'),
    graded: count('graded'),
    passed: count('passed'),
    bestScoreSum: count('best_score_sum'),
    completeSecondsSum: count('complete_seconds_sum'),
  },
  { key: (tenant: TenantContext, t) => keys.courseReport(tenant, t.courseId) },
)

/** A tally's non-zero moves by attribute name (an ADD), shared with the daily tallies. */
export function tallyAdd(delta: CourseTally): Record<string, number> {
  const add: Record<string, number> = {}
  for (const f of tallyFields) if (delta[f] !== 0) add[tallyEntity.fields[f].attribute] = delta[f]
  return add
}

/** The ADD of a tally's non-zero moves to its course's item, or no step when nothing moves. */
export function courseTallySteps(tenant: TenantContext, courseId: string, delta: CourseTally): Step<never>[] {
  return addSteps(keys.courseReport(tenant, courseId), tallyAdd(delta), {
    course_id: courseId,
    type: tallyEntity.type,
  })
}

/** Each course's tally moves by what its enrollments' writes change. */
export const courseTallyProjection: Projection = {
  name: 'course tally',
  movesFor: (tenant, change) => ({
    steps: [...writesByCourse(change)].flatMap(([courseId, writes]) =>
      courseTallySteps(
        tenant,
        courseId,
        writes.reduce((t, w) => addTallies(t, tallyDelta(w.before, w.after)), emptyTally),
      ),
    ),
  }),
}

export function toCourseTally(item: Item): { courseId: string; tally: CourseTally } {
  const { courseId, ...tally } = tallyEntity.decode(item)
  return { courseId, tally }
}

export const courseTalliesParams = (tenant: TenantContext, courseIds: readonly string[]) =>
  [...new Set(courseIds)].map((id) => keys.courseReport(tenant, id))

/** Each course's tally; a course without enrollments yet has none stored and reads as zeros. */
export async function getCourseTallies(
  tenant: TenantContext,
  courseIds: readonly string[],
): Promise<Map<string, CourseTally>> {
  const found = (await batchGet(courseTalliesParams(tenant, courseIds))).map(toCourseTally)
  const byId = new Map(found.map((t) => [t.courseId, t.tally]))
  return new Map(courseIds.map((id) => [id, byId.get(id) ?? emptyTally]))
}

/** Every course tally of the tenant: one key range of its partition. */
export function allCourseTalliesParams(tenant: TenantContext) {
  // A tally's key for an empty course id is the partition and the sort key prefix of every tally.
  const { pk, sk: prefix } = keys.courseReport(tenant, '')
  return queryExpression({ key: cond.and(cond.eq('pk', pk), cond.beginsWith('sk', prefix)) })
}

/** Every course tally of the tenant, by course id (a course without enrollments has none stored). */
export async function allCourseTallies(tenant: TenantContext): Promise<Map<string, CourseTally>> {
  const found = (await queryAll(allCourseTalliesParams(tenant))).map(toCourseTally)
  return new Map(found.map((t) => [t.courseId, t.tally]))
}

/** The tally's copy of the course title, written in the course's own transaction. */
export function courseTitleStep(tenant: TenantContext, courseId: string, title: string): Step<never> {
  return {
    item: {
      Update: {
        Key: keys.courseReport(tenant, courseId),
        ...updateExpression({ set: { title, course_id: courseId, type: tallyEntity.type } }),
      },
    },
  }
}
