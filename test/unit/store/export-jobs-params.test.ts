import { describe, expect, it } from 'vitest'
import { stuckLeaseBefore, type ExportJob } from '../../../shared/domain/reports/export-jobs.ts'
import type { TenantContext } from '../../../shared/domain/tenants/tenant.ts'
import {
  claimExportJobParams,
  completeExportJobSteps,
  createExportJobParams,
  failExportJobParams,
  getExportJobParams,
  withdrawExportJobParams,
} from '../../../shared/store/files/export-jobs-store.ts'
import { expiredLeasesParams, failStuckExportParams } from '../../../shared/store/files/export-leases.ts'
import { readable } from '../../helpers/readable-expression.ts'

const tenant: TenantContext = { id: 't1', plan: 'growth' }
const at = '2026-03-01T10:00:00.000Z'
const job: ExportJob = {
  id: 'j1',
  status: 'queued',
  reportType: 'completions',
  format: 'csv',
  filters: { pass_fail: 'pass' },
  notifyEmail: 'a@example.com',
  createdAt: at,
  startedAt: null,
  completedAt: null,
  rowCount: null,
  fileSizeBytes: null,
  truncated: false,
  error: null,
  objectKey: null,
}
const key = { pk: 'T#t1', sk: 'EXPORT#j1' }

describe('Functions: export jobs', () => {
  it('creates a job queued, once, expiring after thirty days', () => {
    const p = createExportJobParams(tenant, job)
    expect(p.Item).toMatchObject({
      ...key,
      status: 'queued',
      report_type: 'completions',
      format: 'csv',
      filters: { pass_fail: 'pass' },
      ttl: Date.parse(at) / 1000 + 30 * 86_400,
      // On the leases range from the start, its creation as its lease: a lost message is found.
      lease_until: at,
      gsi1pk: 'EXPORT#LEASES',
      gsi1sk: `${at}#j1`,
    })
    expect(readable('ConditionExpression', p)).toBe('attribute_not_exists(pk)')
  })

  it('reads a job strongly consistent, and withdraws it only while queued', () => {
    expect(getExportJobParams(tenant, 'j1')).toEqual({ Key: key, ConsistentRead: true })
    expect(readable('ConditionExpression', withdrawExportJobParams(tenant, 'j1'))).toBe('status = "queued"')
  })

  it('claims a queued job, or a processing one whose lease ran out, in one conditional write', () => {
    const p = claimExportJobParams(tenant, 'j1', {
      claimId: 'c1',
      now: at,
      leaseUntil: '2026-03-01T10:05:00.000Z',
    })
    expect(p.Key).toEqual(key)
    expect(readable('ConditionExpression', p)).toBe(
      '(attribute_exists(pk)) AND ((status = "queued") OR ((status = "processing") AND (lease_until < "2026-03-01T10:00:00.000Z")))',
    )
    expect(readable('UpdateExpression', p)).toBe(
      'SET status = "processing", claim_id = "c1", lease_until = "2026-03-01T10:05:00.000Z", started_at = "2026-03-01T10:00:00.000Z", ' +
        'gsi1pk = "EXPORT#LEASES", gsi1sk = "2026-03-01T10:05:00.000Z#j1"',
    )
  })

  it('completes or fails a job only for the claim that holds it; the notification goes in the same transaction', () => {
    const result = { completedAt: at, rowCount: 3, fileSizeBytes: 99, truncated: false, objectKey: 'k' }
    const notification = {
      id: 'n1',
      template: 'export_ready' as const,
      userId: null,
      email: 'a@example.com',
      createdAt: at,
      data: {},
    }
    const steps = completeExportJobSteps(tenant, 'j1', 'c1', result, { notifications: [notification] })
    expect(steps).toHaveLength(2)
    const update = steps[0]?.item.Update
    expect(steps[0]?.refusal).toBe('claim_lost')
    expect(update?.Key).toEqual(key)
    expect(readable('ConditionExpression', update ?? {})).toBe(
      '(status = "processing") AND (claim_id = "c1")',
    )
    expect(readable('UpdateExpression', update ?? {})).toContain('status = "completed"')
    expect(readable('UpdateExpression', update ?? {})).toContain('REMOVE lease_until, gsi1pk, gsi1sk')
    expect(steps[1]?.item.Put?.Item).toMatchObject({ type: 'notification', template: 'export_ready' })

    const failed = failExportJobParams(tenant, 'j1', 'c1', { error: 'E', at })
    expect(readable('ConditionExpression', failed)).toBe('(status = "processing") AND (claim_id = "c1")')
    expect(readable('UpdateExpression', failed)).toBe(
      `SET status = "failed", error = "E", failed_at = "${at}" REMOVE lease_until, gsi1pk, gsi1sk`,
    )
  })

  it('finds the claimed jobs of every tenant whose lease ran out before a moment, in one key range', () => {
    const p = expiredLeasesParams('2026-03-01T09:00:00.000Z')
    expect(p.IndexName).toBe('gsi1')
    expect(readable('KeyConditionExpression', p)).toBe(
      '(gsi1pk = "EXPORT#LEASES") AND (gsi1sk < "2026-03-01T09:00:00.000Z")',
    )
    expect(readable('ProjectionExpression', p)).toBe('pk, sk, lease_until')
  })

  it('fails a stuck job only while it is still queued or processing under the lease it was found with', () => {
    const lease = { key, leaseUntil: '2026-03-01T08:00:00.000Z' }
    const p = failStuckExportParams(lease, { error: 'E', at })
    expect(p.Key).toEqual(key)
    expect(readable('ConditionExpression', p)).toBe(
      '((status = "queued") OR (status = "processing")) AND (lease_until = "2026-03-01T08:00:00.000Z")',
    )
    expect(readable('UpdateExpression', p)).toBe(
      `SET status = "failed", error = "E", failed_at = "${at}" REMOVE lease_until, gsi1pk, gsi1sk`,
    )
  })

  it('calls a lease stuck an hour after it ran out', () => {
    expect(stuckLeaseBefore('2026-03-01T10:00:00.000Z')).toBe('2026-03-01T09:00:00.000Z')
  })
})
