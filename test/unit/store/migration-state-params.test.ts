import { describe, expect, it } from 'vitest'
import { anEnrollment, aCompletedEnrollment } from '../../helpers/builders.ts'
import {
  claimParams,
  releaseParams,
  savePageParams,
} from '../../../shared/store/migrations/migration-state-store.ts'
import { enrollmentBackfillSteps } from '../../../shared/store/migrations/report-backfill.ts'

const claim = {
  migrationId: '2026-11-report-keys',
  owner: 'me',
  now: '2026-11-27T09:00:00.000Z',
  nowMs: 1_000,
  leaseUntil: 121_000,
}
const counts = { scanned: 100, changed: 7, skipped: 0 }

describe('The migration state writes: each transition one conditional write', () => {
  it('claims a migration only while it is not done and its lease is free, lapsed or ours', () => {
    const p = claimParams(claim)
    expect(p.Key).toEqual({ pk: 'PLATFORM#MIGRATIONS', sk: 'MIGRATION#2026-11-report-keys' })
    expect(p.ConditionExpression).toBe(
      'attribute_not_exists(#pk) OR (#status <> :done AND (attribute_not_exists(#until) OR #until < :nowMs OR #owner = :owner))',
    )
    expect(p.UpdateExpression).toContain('#started = if_not_exists(#started, :now)')
    expect(p.ExpressionAttributeValues).toMatchObject({ ':owner': 'me', ':until': 121_000, ':nowMs': 1_000 })
  })

  it('keeps a run scoped to one tenant under a state of its own', () => {
    const p = claimParams({ ...claim, tenantId: 't1' })
    expect(p.Key).toEqual({ pk: 'PLATFORM#MIGRATIONS', sk: 'MIGRATION#2026-11-report-keys#TENANT#t1' })
    expect(p.ExpressionAttributeValues).toMatchObject({ ':tenant': 't1' })
  })

  it('saves a page (cursor, counts, renewed lease) only under the lease', () => {
    const p = savePageParams({ ...claim, cursor: '{"pk":"a","sk":"b"}', counts })
    expect(p.ConditionExpression).toBe('#owner = :owner')
    expect(p.UpdateExpression).toBe(
      'SET #cursor = :cursor, #until = :until, #updated = :now ADD #scanned :scanned, #changed :changed, #skipped :skipped, #pages :one',
    )
  })

  it('marks the migration done with its last page, dropping the cursor and the lease in the same write', () => {
    const p = savePageParams({ ...claim, cursor: null, counts })
    expect(p.ConditionExpression).toBe('#owner = :owner')
    expect(p.UpdateExpression).toMatch(/^SET #status = :done, #finished = :now/)
    expect(p.UpdateExpression).toMatch(/REMOVE #cursor, #owner, #until$/)
    expect(p.ExpressionAttributeValues).toMatchObject({ ':done': 'done' })
  })

  it('lets a lease go only if it is ours', () => {
    expect(releaseParams({ migrationId: 'x' }, 'me')).toMatchObject({
      UpdateExpression: 'REMOVE #owner, #until',
      ConditionExpression: '#owner = :owner',
    })
  })
})

describe('enrollmentBackfillSteps: an old enrollment and its aggregates, added once', () => {
  const tenant = { id: 't1', plan: 'growth' } as const

  it('puts the item as written now only while it still lacks rpt4pk and is as read, beside the ADDs', () => {
    const e = aCompletedEnrollment({ id: 'e1', courseId: 'c1' })
    const [put, ...adds] = enrollmentBackfillSteps(tenant, e)
    expect(put?.refusal).toBe('stale')
    expect(put?.item.Put?.Item).toMatchObject({ rpt4pk: 'T#t1#CCREATED#c1', rpt3pk: 'T#t1#SCORES' })
    expect(put?.item.Put?.ConditionExpression).toContain('attribute_not_exists')
    expect(Object.values(put?.item.Put?.ExpressionAttributeNames ?? {})).toEqual(
      expect.arrayContaining(['rpt4pk', 'updated_at']),
    )
    const keys = adds.map((s) => String(s.item.Update?.Key?.sk))
    expect(keys).toEqual(expect.arrayContaining(['RPTCOURSE#c1']))
    expect(keys.some((k) => k.startsWith('RPTCDAY#c1#'))).toBe(true)
    expect(keys.some((k) => k.startsWith('RPTHOUR#'))).toBe(true)
    // Every aggregate is an ADD without a condition of its own: the Put's condition guards them all.
    for (const s of adds) expect(s.item.Update?.ConditionExpression).toBeUndefined()
  })

  it('adds nothing to the completion histograms for an enrollment not completed', () => {
    const keys = enrollmentBackfillSteps(tenant, anEnrollment({ id: 'e2', courseId: 'c1' })).map((s) =>
      String(s.item.Update?.Key?.sk ?? s.item.Put?.Item?.sk),
    )
    expect(keys.filter((k) => k.startsWith('RPTEXPIRY#'))).toEqual([])
  })
})
