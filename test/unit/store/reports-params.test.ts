import { describe, expect, it } from 'vitest'
import type { TenantContext } from '../../../shared/domain/tenants/tenant.ts'
import {
  allCourseTalliesParams,
  courseTallySteps,
  toCourseTally,
} from '../../../shared/store/reports/course-report-items.ts'
import { enrollmentItem } from '../../../shared/store/enrollments/enrollment-items.ts'
import {
  assignmentsInStatusParams,
  completionsRangeParams,
  enrolledRangeParams,
  reportableCoursesParams,
} from '../../../shared/store/reports/reports-store.ts'
import { emptyTally } from '../../../shared/domain/reports/course-performance.ts'
import { enrollment } from '../domain/reports/fixtures.ts'
import { readable } from '../../helpers/readable-expression.ts'

const tenant: TenantContext = { id: '11111111-1111-4111-8111-111111111111', plan: 'growth' }
const pk = `T#${tenant.id}`
const asOf = '2026-06-01T00:00:00.000Z'
const windowEnd = '2026-07-01T00:00:00.000Z'

describe('Report index keys of an enrollment (rpt1 assignments; act1 activity: activity-index.test.ts)', () => {
  it('puts an assignment on rpt1 by expiry: ! without a completion, ~ for a lasting one', () => {
    const id = '00000000-0000-4000-8000-000000000001'
    expect(enrollmentItem(tenant, enrollment())).toMatchObject({ rpt1pk: `${pk}#ASSIGN`, rpt1sk: `!#${id}` })
    const lasting = enrollment({ status: 'completed', completedAt: asOf })
    expect(enrollmentItem(tenant, lasting)).toMatchObject({ rpt1sk: `~#${id}` })
    const expiring = enrollment({ status: 'completed', completedAt: asOf, certificateExpiresAt: windowEnd })
    expect(enrollmentItem(tenant, expiring)).toMatchObject({ rpt1sk: `${windowEnd}#${id}` })
  })

  it('leaves dropped, waitlisted and pending enrollments off rpt1', () => {
    for (const status of ['dropped', 'waitlisted', 'pending_approval'] as const) {
      expect(enrollmentItem(tenant, enrollment({ status }))).not.toHaveProperty('rpt1pk')
    }
  })
})

describe('Report reads', () => {
  it('reads completions on gsi3 strictly between the bounds, completions only', () => {
    const open = completionsRangeParams(tenant, { order: 'desc' })
    expect(open.IndexName).toBe('gsi3')
    expect(open.ScanIndexForward).toBe(false)
    expect(readable('KeyConditionExpression', open)).toBe(
      `(gsi3pk = "${pk}#ENROLLMENTS") AND (gsi3sk BETWEEN "0" AND "~")`,
    )
    const bounded = completionsRangeParams(tenant, {
      after: asOf,
      before: windowEnd,
      passFail: 'fail',
      order: 'asc',
    })
    expect(readable('KeyConditionExpression', bounded)).toBe(
      `(gsi3pk = "${pk}#ENROLLMENTS") AND (gsi3sk BETWEEN "${asOf}#~" AND "${windowEnd}#")`,
    )
    expect(readable('FilterExpression', bounded)).toBe('pass_fail = "fail"')
  })

  it('reads enrollments on gsi1 between the enrollment-date bounds with the status as filter', () => {
    const p = enrolledRangeParams(tenant, { after: asOf, status: 'dropped', order: 'desc' })
    expect(p.IndexName).toBe('gsi1')
    expect(readable('KeyConditionExpression', p)).toBe(
      `(gsi1pk = "${pk}#ENROLLMENTS") AND (gsi1sk BETWEEN "${asOf}#~" AND "~")`,
    )
    expect(readable('FilterExpression', p)).toBe('status = "dropped"')
  })

  it('reads each compliance status at as_of as key ranges of rpt1', () => {
    const key = (p: { KeyConditionExpression: string }) => readable('KeyConditionExpression', p)
    const filter = (p: { FilterExpression?: string }) => readable('FilterExpression', p)
    const base = `(rpt1pk = "${pk}#ASSIGN")`
    const [compliant] = assignmentsInStatusParams(tenant, 'compliant', asOf)
    expect(compliant && key(compliant)).toBe(`${base} AND (rpt1sk > "${windowEnd}#~")`)
    expect(compliant && filter(compliant)).toBe(`completed_at <= "${asOf}"`)
    const [expiring] = assignmentsInStatusParams(tenant, 'expiring_soon', asOf)
    expect(expiring && key(expiring)).toBe(`${base} AND (rpt1sk BETWEEN "${asOf}#~" AND "${windowEnd}#~")`)
    expect(expiring && filter(expiring)).toBe(`completed_at <= "${asOf}"`)
    const [lapsed, later] = assignmentsInStatusParams(tenant, 'non_compliant', asOf)
    expect(lapsed && key(lapsed)).toBe(`${base} AND (rpt1sk < "${asOf}#~")`)
    expect(lapsed && filter(lapsed)).toBe('')
    expect(later && key(later)).toBe(`${base} AND (rpt1sk > "${asOf}#~")`)
    expect(later && filter(later)).toBe(`completed_at > "${asOf}"`)
  })

  it('reads the courses of a performance report by title, drafts left out', () => {
    const p = reportableCoursesParams(tenant, 'cat-1')
    expect(p.IndexName).toBe('gsi2')
    expect(readable('FilterExpression', p)).toBe('(status <> "draft") AND (category_id = "cat-1")')
  })
})

describe('Course tally item', () => {
  it('adds only the figures that move, and reads a stored tally back', () => {
    const [step, ...rest] = courseTallySteps(tenant, 'c-1', {
      ...emptyTally,
      completions: 1,
      bestScoreSum: 85.5,
    })
    expect(rest).toEqual([])
    expect(step?.item.Update?.Key).toEqual({ pk, sk: 'RPTCOURSE#c-1' })
    expect(readable('UpdateExpression', step?.item.Update)).toBe(
      'SET course_id = "c-1", type = "course_report" ADD completions 1, best_score_sum 85.5',
    )
    expect(courseTallySteps(tenant, 'c-1', emptyTally)).toEqual([])
    expect(toCourseTally({ course_id: 'c-1', enrollments: 3, drop_offs: 1 })).toEqual({
      courseId: 'c-1',
      tally: { ...emptyTally, enrollments: 3, dropOffs: 1 },
    })
  })

  it('reads every tally of the tenant as one key range of its partition', () => {
    const p = allCourseTalliesParams(tenant)
    expect(p).not.toHaveProperty('IndexName')
    expect(readable('KeyConditionExpression', p)).toBe(`(pk = "${pk}") AND (begins_with(sk, "RPTCOURSE#"))`)
  })
})
