import { describe, expect, it } from 'vitest'
import type { TenantContext } from '../../../shared/domain/tenants/tenant.ts'
import {
  allUsersActivityParams,
  allUsersByTypeParams,
  enrollmentActivityAttributes,
  enrollmentsActiveSinceParams,
  enrollmentsActiveSinceSlices,
  usersOfTypeParams,
  instantKey,
  signInsParams,
  toEnrollmentActivity,
  toUserActivity,
  userActivityAttributes,
} from '../../../shared/store/reports/activity-index.ts'
import { enrollmentItem } from '../../../shared/store/enrollments/enrollment-items.ts'
import { tableSchema } from '../../../shared/store/core/table-schema.ts'
import { enrollment } from '../domain/reports/fixtures.ts'
import { readable } from '../../helpers/readable-expression.ts'

const tenant: TenantContext = { id: '11111111-1111-4111-8111-111111111111', plan: 'growth' }
const pk = `T#${tenant.id}`
const start = '2026-06-01T00:00:00.000Z'
const end = '2026-07-01T00:00:00.000Z'
const entry = (item: Record<string, unknown>) => ({ pk: item.pk, sk: item.sk, a1: item.a1 })

describe('act1, the user activity index (decision 0022)', () => {
  it('is KEYS_ONLY on the tenant partition, sorted by a1', () => {
    expect(tableSchema.globalIndexes.find((i) => i.name === 'act1')).toMatchObject({
      pk: 'pk',
      sk: 'a1',
      projection: { type: 'KEYS_ONLY' },
    })
    expect(tableSchema.globalIndexes.map((i) => i.name)).not.toContain('rpt2')
  })

  it('writes instants as fixed-width base 36 milliseconds, so string order is time order', () => {
    const instants = [
      '1999-12-31T23:59:59.999Z',
      start,
      '2026-06-01T00:00:00.001Z',
      end,
      '2100-01-01T00:00:00.000Z',
    ]
    const encoded = instants.map(instantKey)
    expect(encoded.every((k) => k.length === 9)).toBe(true)
    expect([...encoded].sort()).toEqual(encoded)
  })

  it('carries what a row needs of an enrollment with activity, and leaves one without activity off', () => {
    expect(enrollmentItem(tenant, enrollment())).not.toHaveProperty('a1')
    const active = enrollment({
      status: 'completed',
      startedAt: '2026-05-20T10:00:00.123Z',
      completedAt: '2026-06-02T11:00:00.000Z',
      lastActivityAt: '2026-06-03T12:00:00.000Z',
      timeSpentSeconds: 4321,
    })
    expect(toEnrollmentActivity(entry(enrollmentItem(tenant, active)))).toEqual({
      userId: 'u1',
      startedAt: '2026-05-20T10:00:00.123Z',
      completedAt: '2026-06-02T11:00:00.000Z',
      lastActivityAt: '2026-06-03T12:00:00.000Z',
      timeSpentSeconds: 4321,
    })
    const started = enrollment({ startedAt: start, lastActivityAt: start, timeSpentSeconds: 0 })
    expect(toEnrollmentActivity(entry(enrollmentItem(tenant, started)))).toMatchObject({
      startedAt: start,
      completedAt: null,
      timeSpentSeconds: 0,
    })
  })

  it('puts every user on act1, with the type and the last sign-in exactly as stored', () => {
    const user = { id: 'u-1', userType: 'partner' as const }
    const read = (lastLoginAt: string | null) =>
      toUserActivity({ pk, sk: 'USER#u-1', ...userActivityAttributes({ ...user, lastLoginAt }) })
    expect(read(null)).toEqual({ id: 'u-1', lastLoginAt: null, userType: 'partner' })
    expect(read(start)).toEqual({ id: 'u-1', lastLoginAt: start, userType: 'partner' })
    // Not in the canonical form: kept as written, still sorted by its instant.
    expect(read('2026-06-01T02:00:00+02:00')).toMatchObject({ lastLoginAt: '2026-06-01T02:00:00+02:00' })
    expect(userActivityAttributes({ ...user, lastLoginAt: '2026-06-01T02:00:00+02:00' }).a1).toMatch(
      new RegExp(`^Upartner#${instantKey(start)}#u-1#`),
    )
    expect(userActivityAttributes({ ...user, lastLoginAt: null }).a1).toBe('Upartner#!#u-1')
  })

  it('reads a period as key ranges: enrollments since its start, sign-ins inside it (per type), users', () => {
    const base = `(pk = "${pk}")`
    expect(readable('KeyConditionExpression', enrollmentsActiveSinceParams(tenant, start))).toBe(
      `${base} AND (a1 BETWEEN "E${instantKey(start)}" AND "E~")`,
    )
    const signIns = (type?: 'partner') =>
      signInsParams(tenant, { start, end }, type).map((p) => readable('KeyConditionExpression', p))
    expect(signIns('partner')).toEqual([
      `${base} AND (a1 BETWEEN "Upartner#${instantKey(start)}" AND "Upartner#${instantKey(end)}#~")`,
    ])
    expect(signIns()).toHaveLength(5)
    expect(signIns()).toContain(
      `${base} AND (a1 BETWEEN "Uvolunteer#${instantKey(start)}" AND "Uvolunteer#${instantKey(end)}#~")`,
    )
    expect(readable('KeyConditionExpression', usersOfTypeParams(tenant, 'partner'))).toBe(
      `${base} AND (a1 BETWEEN "Upartner#" AND "Upartner#~")`,
    )
    expect(readable('KeyConditionExpression', allUsersActivityParams(tenant))).toBe(
      `${base} AND (a1 BETWEEN "U" AND "U~")`,
    )
    for (const p of [...signInsParams(tenant, { start, end }), allUsersActivityParams(tenant)]) {
      expect(p.IndexName).toBe('act1')
    }
  })

  it('cuts the enrollments since a start into side-by-side ranges that hold each entry exactly once', () => {
    const slices = enrollmentsActiveSinceSlices(tenant, start, end, 8)
    expect(slices).toHaveLength(8)
    const bounds = slices.map((p) => p.ExpressionAttributeValues ?? {})
    const ranges = bounds.map((values) => Object.values(values).filter((x) => String(x).startsWith('E')))
    const holding = (at: string) => {
      const a1 = String(
        enrollmentActivityAttributes({
          userId: 'u1',
          startedAt: null,
          completedAt: null,
          lastActivityAt: at,
          timeSpentSeconds: 1,
        }).a1,
      )
      return ranges.filter(([low, high]) => String(low) <= a1 && a1 <= String(high)).length
    }
    const span = Date.parse(end) - Date.parse(start)
    for (let i = 0; i <= 8; i++) {
      const boundary = Date.parse(start) + Math.floor((span * i) / 8)
      for (const ms of [boundary - 1, boundary, boundary + 1]) {
        expect(holding(new Date(ms).toISOString()), new Date(ms).toISOString()).toBe(
          ms < Date.parse(start) ? 0 : 1,
        )
      }
    }
    expect(holding('2030-01-01T00:00:00.000Z')).toBe(1)
    expect(enrollmentsActiveSinceSlices(tenant, start, start, 8)).toEqual([
      enrollmentsActiveSinceParams(tenant, start),
    ])
    expect(allUsersByTypeParams(tenant).map((p) => readable('KeyConditionExpression', p))).toContain(
      `(pk = "${pk}") AND (a1 BETWEEN "Ucontractor#" AND "Ucontractor#~")`,
    )
  })
})
