import { describe, expect, it } from 'vitest'
import type { TenantContext } from '../../../shared/domain/tenants/tenant.ts'
import {
  latestBetweenParams,
  latestEntryValue,
  latestTopParams,
  toLatestEntry,
  userEntriesParams,
} from '../../../shared/store/reports/activity-index.ts'
import {
  activityHistorySteps,
  latestMoveSteps,
  seedLatestItems,
} from '../../../shared/store/reports/activity-latest-items.ts'
import { latestMonthsParams } from '../../../shared/store/reports/activity-latest-reads.ts'
import { enrollmentItem } from '../../../shared/store/enrollments/enrollment-items.ts'
import { tableSchema } from '../../../shared/store/core/table-schema.ts'
import { enrollment } from '../domain/reports/fixtures.ts'
import { readable } from '../../helpers/readable-expression.ts'

const tenant: TenantContext = { id: '11111111-1111-4111-8111-111111111111', plan: 'growth' }
const pk = `T#${tenant.id}`
const at = (iso: string) => Date.parse(iso)
const key = (value: string, pkName: string, skName: string, from: string, to: string) =>
  `(${pkName} = "${value}") AND (${skName} BETWEEN "${from}" AND "${to}")`

describe('The latest-activity aggregate’s items and reads (decision 0024)', () => {
  it('puts one user’s entries on act2, KEYS_ONLY, partitioned by user', () => {
    expect(tableSchema.globalIndexes.find((i) => i.name === 'act2')).toMatchObject({
      pk: 'a2pk',
      sk: 'a1',
      projection: { type: 'KEYS_ONLY' },
    })
    const active = enrollment({
      startedAt: '2026-06-01T00:00:00.000Z',
      lastActivityAt: '2026-06-01T00:00:00.000Z',
    })
    expect(enrollmentItem(tenant, active)).toMatchObject({ a2pk: `${pk}#ACT#u1` })
    expect(enrollmentItem(tenant, enrollment())).not.toHaveProperty('a2pk')
  })

  it('orders users by latest activity in a1 and reads them back', () => {
    const value = latestEntryValue('u-9', at('2026-06-01T00:00:00.000Z'))
    expect(toLatestEntry({ pk, sk: 'UACT#u-9', a1: latestEntryValue('u-9', 5, 'volunteer') })).toMatchObject({
      userType: 'volunteer',
    })
    expect(toLatestEntry({ pk, sk: 'UACT#u-9', a1: value })).toEqual({
      userType: undefined,
      userId: 'u-9',
      latest: at('2026-06-01T00:00:00.000Z'),
    })
    expect(latestEntryValue('u', 1) < latestEntryValue('u', 2)).toBe(true)
    expect(() => toLatestEntry({ pk, sk: 'x', a1: 'E123' })).toThrow()
  })

  it('reads the most recent first with a Limit, a day’s users as one range, one user’s entries since an instant', () => {
    const top = latestTopParams(tenant, 50)
    expect(top).toMatchObject({ IndexName: 'act1', ScanIndexForward: false, Limit: 50 })
    expect(readable('KeyConditionExpression', top)).toBe(key(pk, 'pk', 'a1', 'A', 'A~'))
    expect(readable('KeyConditionExpression', latestBetweenParams(tenant, 0, 36 ** 2))).toBe(
      key(pk, 'pk', 'a1', 'A000000000', 'A000000100#~'),
    )
    const own = userEntriesParams(tenant, 'u-1', 0)
    expect(own.IndexName).toBe('act2')
    expect(readable('KeyConditionExpression', own)).toBe(
      key(`${pk}#ACT#u-1`, 'a2pk', 'a1', 'E000000000', 'U~'),
    )
    expect(readable('KeyConditionExpression', latestMonthsParams(tenant, '2026-06'))).toBe(
      key(pk, 'pk', 'sk', 'RPTACT#2026-06', 'RPTACT#~'),
    )
  })

  it('moves the user’s latest conditioned on the value read, and its days in the histogram', () => {
    const from = { latest: at('2026-05-31T10:00:00Z'), userType: 'partner' as const }
    const to = { latest: at('2026-06-02T10:00:00Z'), userType: 'partner' as const }
    const steps = latestMoveSteps(tenant, 'u-1', from, to, 'stale')
    expect(steps).toHaveLength(3)
    expect(steps[0]?.refusal).toBe('stale')
    expect(readable('ConditionExpression', steps[0]?.item.Put)).toBe(
      `(latest = ${from.latest}) AND (user_type = "partner")`,
    )
    expect(steps[0]?.item.Put?.Item).toMatchObject({
      user_type: 'partner',
      a1: latestEntryValue('u-1', to.latest, 'partner'),
    })
    expect(steps.slice(1).map((s) => readable('UpdateExpression', s.item.Update))).toEqual([
      'SET type = "activity_histogram", month = "2026-05" ADD d31 -1, d31_partner -1',
      'SET type = "activity_histogram", month = "2026-06" ADD d02 1, d02_partner 1',
    ])
    const first = latestMoveSteps(tenant, 'u-1', null, to, 'stale')
    expect(readable('ConditionExpression', first[0]?.item.Put)).toBe('attribute_not_exists(pk)')
    expect(latestMoveSteps(tenant, 'u-1', to, to, 'stale')).toEqual([])
    expect(
      latestMoveSteps(tenant, 'u-1', to, { latest: null, userType: 'partner' }, 'stale')[0]?.item.Delete,
    ).toBeDefined()
    // A change of type alone moves the user between the types' counts of the same day.
    const retyped = latestMoveSteps(tenant, 'u-1', to, { ...to, userType: 'customer' }, 'stale')
    expect(retyped.slice(1).map((s) => readable('UpdateExpression', s.item.Update))).toEqual([
      'SET type = "activity_histogram", month = "2026-06" ADD d02_partner -1, d02_customer 1',
    ])
  })

  it('keeps a replaced enrollment’s activity as a history entry, and nothing for one without', () => {
    const done = enrollment({
      startedAt: '2026-06-01T00:00:00.000Z',
      lastActivityAt: '2026-06-02T00:00:00.000Z',
    })
    const [history] = activityHistorySteps(tenant, done, 'dup')
    expect(history?.item.Put?.Item).toMatchObject({
      a1: enrollmentItem(tenant, done).a1,
      a2pk: `${pk}#ACT#u1`,
      type: 'enrollment_activity_history',
    })
    expect(activityHistorySteps(tenant, enrollment(), 'dup')).toEqual([])
  })

  it('seeds the latest of each user and the histogram as the writes would', () => {
    const items = seedLatestItems(
      tenant,
      [
        { id: 'a', lastLoginAt: '2026-06-03T00:00:00.000Z', userType: 'internal' },
        { id: 'b', lastLoginAt: null, userType: 'partner' },
        { id: 'c', lastLoginAt: null, userType: 'internal' },
      ],
      [
        { userId: 'a', startedAt: '2026-06-01T00:00:00.000Z', completedAt: null },
        { userId: 'b', startedAt: '2026-06-01T00:00:00.000Z', completedAt: '2026-06-03T05:00:00.000Z' },
      ],
    )
    expect(items.filter((i) => i.type === 'user_activity_latest').map((i) => [i.user_id, i.latest])).toEqual([
      ['a', at('2026-06-03T00:00:00.000Z')],
      ['b', at('2026-06-03T05:00:00.000Z')],
    ])
    expect(items.find((i) => i.type === 'activity_histogram')).toMatchObject({
      sk: 'RPTACT#2026-06',
      d03: 2,
      d03_internal: 1,
      d03_partner: 1,
    })
  })
})
