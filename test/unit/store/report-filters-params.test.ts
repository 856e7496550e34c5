/** The keys and reads of the filtered report pages (decision 0023): rpt3 by score, the compliance histogram. */
import { describe, expect, it } from 'vitest'
import type { TenantContext } from '../../../shared/domain/tenants/tenant.ts'
import {
  currentStatusParams,
  expiringOnDayUpToParams,
  expiryCounterDeltas,
  expiryMonthSteps,
  expiryMonthsParams,
} from '../../../shared/store/reports/compliance-histogram-items.ts'
import { enrollmentItem } from '../../../shared/store/enrollments/enrollment-items.ts'
import {
  insertEnrollmentsParams,
  saveEnrollmentParams,
} from '../../../shared/store/enrollments/enrollments-store.ts'
import { scoreSortValue } from '../../../shared/store/reports/report-indexes.ts'
import { completionsByScoreParams } from '../../../shared/store/reports/report-score-reads.ts'
import { courseEnrollmentsPageParams } from '../../../shared/store/reports/course-report-pages.ts'
import { enrollment } from '../domain/reports/fixtures.ts'
import { readable } from '../../helpers/readable-expression.ts'

const tenant: TenantContext = { id: '11111111-1111-4111-8111-111111111111', plan: 'growth' }
const pk = `T#${tenant.id}`
const id = '00000000-0000-4000-8000-000000000001'
const asOf = '2026-06-10T12:00:00.000Z'
const windowEnd = '2026-07-10T12:00:00.000Z'

describe('rpt3: completions by score', () => {
  it('orders scores as numbers, no score last, negatives first', () => {
    const scores = [100, 9.5, 72.25, 0, null, 72.2501, -3, -20, 1234.5]
    const sorted = [...scores].sort((a, b) => (scoreSortValue(a) < scoreSortValue(b) ? -1 : 1))
    expect(sorted).toEqual([-20, -3, 0, 9.5, 72.25, 72.2501, 100, 1234.5, null])
  })

  it('puts every completion on rpt3 by score, and nothing else', () => {
    expect(enrollmentItem(tenant, enrollment())).not.toHaveProperty('rpt3pk')
    const completed = enrollment({ status: 'completed', completedAt: asOf, score: 72.5 })
    expect(enrollmentItem(tenant, completed)).toMatchObject({
      rpt3pk: `${pk}#SCORES`,
      rpt3sk: `000000072.5000#${id}`,
    })
    const unscored = enrollment({ status: 'completed', completedAt: asOf, score: null })
    expect(enrollmentItem(tenant, unscored)).toMatchObject({ rpt3sk: `~#${id}` })
  })

  it('reads rpt3 in the asked order, pass_fail as a filter', () => {
    const p = completionsByScoreParams(tenant, { passFail: 'pass', order: 'desc' })
    expect(p.IndexName).toBe('rpt3')
    expect(p.ScanIndexForward).toBe(false)
    expect(readable('KeyConditionExpression', p)).toBe(`rpt3pk = "${pk}#SCORES"`)
    expect(readable('FilterExpression', p)).toBe('pass_fail = "pass"')
  })
})

describe('The compliance histogram', () => {
  it('keeps none on the counters and a dated expiry on its month, one ADD per month', () => {
    const delta = new Map([
      ['none', -2],
      ['never', 1],
      ['2027-01-01', 1],
      ['2027-01-31', 1],
      ['2027-02-01', -1],
    ] as const)
    expect(expiryCounterDeltas(delta)).toEqual({ assign_none: -2 })
    const steps = expiryMonthSteps(tenant, delta)
    expect(steps.map((s) => s.item.Update?.Key)).toEqual([
      { pk, sk: 'RPTEXPIRY#2027-01' },
      { pk, sk: 'RPTEXPIRY#2027-02' },
    ])
    expect(readable('UpdateExpression', steps[0]?.item.Update ?? {})).toBe(
      'SET type = "expiry_histogram", month = "2027-01" ADD d01 1, d31 1',
    )
  })

  it('moves with a completion in the enrollment transaction (the counters and the month)', () => {
    const before = enrollment({ status: 'active', updatedAt: '2026-01-01T00:00:00.000Z' })
    const after = enrollment({
      status: 'completed',
      completedAt: asOf,
      certificateExpiresAt: windowEnd,
      updatedAt: asOf,
    })
    const steps = saveEnrollmentParams(tenant, { before, after, effects: {} })
    const counters = steps.find((s) => s.item.Update?.Key?.sk === 'COUNTERS')?.item.Update ?? {}
    expect(readable('UpdateExpression', counters)).toContain('assign_none -1')
    const month = steps.find((s) => s.item.Update?.Key?.sk === 'RPTEXPIRY#2026-07')?.item.Update ?? {}
    expect(readable('UpdateExpression', month)).toContain('ADD d10 1')
  })

  it('counts a new enrollment in none, in the group transaction', () => {
    const steps = insertEnrollmentsParams(
      tenant,
      'c1',
      [{ enrollment: enrollment({ status: 'active' }), replaces: undefined, effects: {} }],
      { seatLimit: null },
    )
    const counters = steps.find((s) => s.item.Update?.Key?.sk === 'COUNTERS')?.item.Update ?? {}
    expect(readable('UpdateExpression', counters)).toContain('assign_none 1')
    expect(steps.some((s) => s.item.Update?.Key?.sk?.startsWith('RPTEXPIRY#'))).toBe(false)
  })

  it('reads the months up to the window end, and rpt1 within a day up to a time', () => {
    expect(readable('KeyConditionExpression', expiryMonthsParams(tenant, '2026-07'))).toBe(
      `(pk = "${pk}") AND (sk BETWEEN "RPTEXPIRY#" AND "RPTEXPIRY#2026-07")`,
    )
    expect(readable('KeyConditionExpression', expiringOnDayUpToParams(tenant, asOf))).toBe(
      `(rpt1pk = "${pk}#ASSIGN") AND (rpt1sk BETWEEN "2026-06-10T" AND "${asOf}#~")`,
    )
  })

  it('reads one rpt1 range per status, without a filter', () => {
    const key = (s: 'compliant' | 'expiring_soon' | 'non_compliant') =>
      readable('KeyConditionExpression', currentStatusParams(tenant, s, asOf))
    expect(key('non_compliant')).toBe(`(rpt1pk = "${pk}#ASSIGN") AND (rpt1sk < "${asOf}#~")`)
    expect(key('expiring_soon')).toBe(
      `(rpt1pk = "${pk}#ASSIGN") AND (rpt1sk BETWEEN "${asOf}#~" AND "${windowEnd}#~")`,
    )
    expect(key('compliant')).toBe(`(rpt1pk = "${pk}#ASSIGN") AND (rpt1sk > "${windowEnd}#~")`)
    expect(currentStatusParams(tenant, 'compliant', asOf)).not.toHaveProperty('FilterExpression')
  })
})

describe('Course tallies by creation day (performance with a period)', () => {
  it('adds each write to its course and creation day, in the same transaction as the enrollment', async () => {
    const { courseDayTalliesParams, courseCreatedBetweenParams } =
      await import('../../../shared/store/reports/course-day-tallies.ts')
    const created = '2026-03-01T22:00:00.000Z'
    const steps = insertEnrollmentsParams(
      tenant,
      'c1',
      [
        {
          enrollment: enrollment({ createdAt: created, enrolledAt: created }),
          replaces: undefined,
          effects: {},
        },
      ],
      { seatLimit: null },
    )
    const day = steps.find((s) => s.item.Update?.Key?.sk === 'RPTCDAY#c1#2026-03-01')?.item.Update ?? {}
    expect(readable('UpdateExpression', day)).toBe(
      'SET course_id = "c1", day = "2026-03-01", type = "course_day_report" ADD enrollments 1',
    )
    expect(enrollmentItem(tenant, enrollment({ createdAt: created }))).toMatchObject({
      rpt4pk: `${pk}#CCREATED#c1`,
      rpt4sk: `${created}#${id}`,
    })
    expect(
      readable('KeyConditionExpression', courseDayTalliesParams(tenant, 'c1', '2026-03-02', '2026-05-31')),
    ).toBe(`(pk = "${pk}") AND (sk BETWEEN "RPTCDAY#c1#2026-03-02" AND "RPTCDAY#c1#2026-05-31")`)
    const edge = courseCreatedBetweenParams(tenant, 'c1', created, '2026-03-01T23:59:59.999Z')
    expect(edge.IndexName).toBe('rpt4')
    expect(readable('KeyConditionExpression', edge)).toBe(
      `(rpt4pk = "${pk}#CCREATED#c1") AND (rpt4sk BETWEEN "${created}" AND "2026-03-01T23:59:59.999Z#~")`,
    )
  })
})

describe('gsi5: one course enrollments page', () => {
  it("reads the course's own partition in enrollment-date order, newest first unless asc", () => {
    const desc = courseEnrollmentsPageParams(tenant, 'c1', 'desc')
    expect(desc.IndexName).toBe('gsi5')
    expect(readable('KeyConditionExpression', desc)).toBe(`gsi5pk = "${pk}#CENR#c1"`)
    expect(desc.ScanIndexForward).toBe(false)
    expect(courseEnrollmentsPageParams(tenant, 'c1', 'asc').ScanIndexForward).toBe(true)
  })
})

describe('entriesToRead: a filtered page’s first read', () => {
  it('reads the page alone unfiltered, the page over the status’s share with a margin, else twice the page', async () => {
    const { entriesToRead } = await import('../../../shared/store/reports/reports-store.ts')
    expect(entriesToRead({}, 50)).toBe(50)
    expect(entriesToRead({ FilterExpression: '#n0 = :v0' }, 50, 0.42)).toBe(136)
    expect(entriesToRead({ FilterExpression: '#n0 = :v0' }, 50, 1)).toBe(60)
    expect(entriesToRead({ FilterExpression: '#n0 = :v0' }, 50)).toBe(120)
    expect(entriesToRead({ FilterExpression: '#n0 = :v0' }, 50, 0)).toBe(120)
  })
})
