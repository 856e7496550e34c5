import { describe, expect, it } from 'vitest'
import type { TenantContext } from '../../../shared/domain/tenants/tenant.ts'
import {
  courseAssignmentsParams,
  courseCompletionsParams,
} from '../../../shared/store/reports/course-report-pages.ts'
import { statusEnrollmentsParams } from '../../../shared/store/reports/status-enrollment-pages.ts'
import { enrollmentItem } from '../../../shared/store/enrollments/enrollment-items.ts'
import { tableSchema } from '../../../shared/store/core/table-schema.ts'
import { enrollment } from '../domain/reports/fixtures.ts'
import { readable } from '../../helpers/readable-expression.ts'

const tenant: TenantContext = { id: 't1', plan: 'growth' }

describe('One course’s completions and assignments (rpt5, rpt6), one status’s enrollments (rpt7; decision 0025)', () => {
  it('are keys-only indexes', () => {
    for (const name of ['rpt5', 'rpt6', 'rpt7']) {
      expect(tableSchema.globalIndexes.find((i) => i.name === name)?.projection, name).toEqual({
        type: 'KEYS_ONLY',
      })
    }
  })

  it('puts a completion under its course by completion time, an assignment by rpt1’s order', () => {
    const done = enrollment({
      status: 'completed',
      completedAt: '2026-06-02T11:00:00.000Z',
      certificateExpiresAt: '2027-06-02T11:00:00.000Z',
    })
    expect(enrollmentItem(tenant, done)).toMatchObject({
      rpt5pk: 'T#t1#CCOMPL#c1',
      rpt5sk: `2026-06-02T11:00:00.000Z#${done.id}`,
      rpt6pk: 'T#t1#CASSIGN#c1',
      rpt6sk: `2027-06-02T11:00:00.000Z#${done.id}`,
    })
    const waiting = enrollment({ status: 'active' })
    expect(enrollmentItem(tenant, waiting)).toMatchObject({ rpt6sk: `!#${waiting.id}` })
    expect(enrollmentItem(tenant, waiting)).not.toHaveProperty('rpt5pk')
    expect(enrollmentItem(tenant, enrollment({ status: 'dropped' }))).not.toHaveProperty('rpt6pk')
  })

  it('reads a course’s range in the page’s order', () => {
    const desc = courseCompletionsParams(tenant, 'c1', 'desc')
    expect(desc).toMatchObject({ IndexName: 'rpt5', ScanIndexForward: false })
    expect(readable('KeyConditionExpression', desc)).toBe('rpt5pk = "T#t1#CCOMPL#c1"')
    expect(courseCompletionsParams(tenant, 'c1', 'asc').ScanIndexForward).toBe(true)
    const assigned = courseAssignmentsParams(tenant, 'c1')
    expect(assigned.IndexName).toBe('rpt6')
    expect(readable('KeyConditionExpression', assigned)).toBe('rpt6pk = "T#t1#CASSIGN#c1"')
  })

  it('puts every enrollment under its status by enrollment time (rpt7), read between the date bounds', () => {
    const e = enrollment({ status: 'active', enrolledAt: '2026-06-01T00:00:00.000Z' })
    expect(enrollmentItem(tenant, e)).toMatchObject({
      rpt7pk: 'T#t1#ESTATUS#active',
      rpt7sk: `2026-06-01T00:00:00.000Z#${e.id}`,
    })
    const p = statusEnrollmentsParams(tenant, {
      status: 'active',
      after: '2026-05-01T00:00:00.000Z',
      order: 'desc',
    })
    expect(p).toMatchObject({ IndexName: 'rpt7', ScanIndexForward: false })
    expect(readable('KeyConditionExpression', p)).toBe(
      '(rpt7pk = "T#t1#ESTATUS#active") AND (rpt7sk BETWEEN "2026-05-01T00:00:00.000Z#~" AND "~")',
    )
  })
})
