import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb'
import { beforeEach, describe, expect, it } from 'vitest'
import { completeEnrollment } from '../../../shared/domain/enrollments/progress.ts'
import type { Enrollment } from '../../../shared/domain/enrollments/enrollment.ts'
import type { TenantContext } from '../../../shared/domain/tenants/tenant.ts'
import {
  projectionSteps,
  readProjectionSteps,
  reportProjections,
} from '../../../shared/store/reports/report-projections.ts'
import { aCompletedEnrollment, anEnrollment, aUser } from '../../helpers/builders.ts'
import { allCalls, mockDocuments } from '../../helpers/mock-documents.ts'
import { readable } from '../../helpers/readable-expression.ts'

const ddb = mockDocuments()
const tenant: TenantContext = { id: '11111111-1111-4111-8111-111111111111', plan: 'growth' }
const at = '2026-03-01T10:00:00.000Z'
const later = '2026-03-02T11:30:00.000Z'
const enrollment = (over: Partial<Enrollment> = {}) =>
  anEnrollment({ id: 'e-1', userId: 'u-1', courseId: 'c-1', ...over }, at)
const skOf = (s: {
  item: { Update?: { Key?: Record<string, unknown> }; Put?: { Item?: Record<string, unknown> } }
}) => String(s.item.Update?.Key?.sk ?? s.item.Put?.Item?.sk)
const noRefusal = (): never => {
  throw new Error('no projection step here is conditioned')
}

beforeEach(() => ddb.reset())

describe('The report projections registry (decision 0034)', () => {
  it('gives a completion the steps of every projection that follows it, in one list, the counters in one update', () => {
    // Prepare
    const before = enrollment({ startedAt: at })
    const after = completeEnrollment(before, later, 'cert-1', 365)

    // Act
    const { counters, steps } = projectionSteps(
      tenant,
      { kind: 'enrollment-changed', before, after },
      noRefusal,
    )

    // Assess: the status counters and the expiry histogram share the one COUNTERS update.
    expect(counters).toHaveLength(1)
    expect(readable('UpdateExpression', counters[0]?.item.Update ?? {})).toBe(
      'ADD enrollments_status_active -1, enrollments_status_completed 1, completions_total 1, assign_none -1',
    )
    expect(steps.map(skOf)).toEqual([
      'RPTCOURSE#c-1',
      `RPTEXPIRY#${after.certificateExpiresAt?.slice(0, 7)}`,
      'RPTCDAY#c-1#2026-03-01',
      'RPTHOUR#enrolled#2026-03-01',
      'RPTHOUR#completed#2026-03-02',
    ])
    expect(
      steps.every((s) => s.refusal === undefined && s.item.Update?.ConditionExpression === undefined),
    ).toBe(true)
  })

  it('gives a change no projection follows no step, and reads nothing for it', async () => {
    const before = enrollment()
    const due = projectionSteps(
      tenant,
      { kind: 'enrollment-changed', before, after: { ...before, dueDate: later, updatedAt: later } },
      noRefusal,
    )
    expect(due).toEqual({ counters: [], steps: [] })
    const user = aUser({ id: 'u-1' })
    const renamed = { kind: 'user-changed', before: user, after: { ...user, firstName: 'Grace' } } as const
    expect(projectionSteps(tenant, renamed, noRefusal)).toEqual({ counters: [], steps: [] })
    expect(await readProjectionSteps(tenant, renamed, 'stale')).toEqual([])
    expect(allCalls(ddb)).toEqual([])
  })

  it('sums a group of rows into one update per item, and refuses the history of a reactivation as that row', () => {
    // Prepare
    const replaced = aCompletedEnrollment(
      { id: 'e-2', userId: 'u-2', courseId: 'c-1', status: 'dropped' },
      at,
    )
    const writes = [
      { before: undefined, after: enrollment() },
      {
        before: replaced,
        after: enrollment({ id: 'e-2', userId: 'u-2', enrolledAt: later, updatedAt: later }),
      },
    ]

    // Act
    const { steps } = projectionSteps(tenant, { kind: 'enrollments-added', writes }, (row) => ({ row }))

    // Assess
    expect(steps.filter((s) => skOf(s) === 'RPTCOURSE#c-1')).toHaveLength(1)
    expect(steps.filter((s) => skOf(s).startsWith('RPTCDAY#c-1#'))).toHaveLength(1)
    const history = steps.find((s) => skOf(s).startsWith('ACTH#e-2#'))
    expect(history?.refusal).toEqual({ row: 1 })
    expect(history?.item.Put?.ConditionExpression).toBe('attribute_not_exists(#n0)')
  })

  it('asks the projections that read first only for a change that moves an instant', async () => {
    // Prepare: the user has no latest activity yet.
    ddb.on(GetCommand).resolves({})
    ddb.on(QueryCommand).resolves({ Items: [] })
    const user = aUser({ id: 'u-1' })

    // Act
    const steps = await readProjectionSteps(
      tenant,
      { kind: 'user-changed', before: user, after: { ...user, lastLoginAt: later } },
      'stale' as const,
    )

    // Assess: the user's latest (refused as `stale` if it moved) and its histogram month.
    expect(steps.map(skOf)).toEqual(['UACT#u-1', 'RPTACT#2026-03'])
    expect(steps[0]?.refusal).toBe('stale')
    expect(reportProjections.filter((p) => p.readStepsFor).map((p) => p.name)).toEqual(['latest activity'])
  })
})
