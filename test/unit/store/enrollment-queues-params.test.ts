import { describe, expect, it } from 'vitest'
import type { Enrollment } from '../../../shared/domain/enrollments/enrollment.ts'
import type { TenantContext } from '../../../shared/domain/tenants/tenant.ts'
import {
  accessEndedByParams,
  oldestWaitlistedParams,
} from '../../../shared/store/enrollments/enrollment-queues.ts'
import { enrollmentIdOfIndexKey, pairIndexKeys } from '../../../shared/store/enrollments/enrollment-items.ts'
import {
  insertEnrollmentsParams,
  saveEnrollmentParams,
} from '../../../shared/store/enrollments/enrollments-store.ts'
import { readable } from '../../helpers/readable-expression.ts'
import { anEnrollment } from '../../helpers/builders.ts'

const tenant: TenantContext = { id: 't1', plan: 'growth' }
const at = '2026-03-01T10:00:00.000Z'
const later = '2026-03-02T10:00:00.000Z'
const ends = '2026-03-31T10:00:00.000Z'

const enrollment = (over: Partial<Enrollment> = {}): Enrollment =>
  anEnrollment({ id: 'e-1', userId: 'u-1', courseId: 'c-1', ...over }, at)

describe('Function: pairIndexKeys', () => {
  it('puts an active enrollment with an end of access in the access-expiry index, by that end', () => {
    expect(pairIndexKeys(tenant, enrollment({ accessExpiresAt: ends }), at)).toEqual({
      set: { gsi1pk: 'T#t1#ACCESSEXPIRY', gsi1sk: `${ends}#e-1` },
      remove: ['gsi2pk', 'gsi2sk'],
    })
  })

  it('puts a waitlisted enrollment in its course’s waitlist, by when it joined', () => {
    expect(pairIndexKeys(tenant, enrollment({ status: 'waitlisted' }), later)).toEqual({
      set: { gsi2pk: 'T#t1#WAITLIST#c-1', gsi2sk: `${later}#e-1` },
      remove: ['gsi1pk', 'gsi1sk'],
    })
  })

  it('keeps everything else out of both: active without an end, completed, pending, dropped, expired', () => {
    for (const e of [
      enrollment(),
      enrollment({ status: 'completed', accessExpiresAt: ends }),
      enrollment({ status: 'pending_approval' }),
      enrollment({ status: 'expired', accessExpiresAt: ends }),
    ]) {
      expect(pairIndexKeys(tenant, e, at)).toEqual({
        set: {},
        remove: ['gsi1pk', 'gsi1sk', 'gsi2pk', 'gsi2sk'],
      })
    }
  })

  it('reads the enrollment id back from an index sort key', () => {
    expect(enrollmentIdOfIndexKey(`${ends}#3f1c9a2e-0000-4000-8000-000000000001`)).toBe(
      '3f1c9a2e-0000-4000-8000-000000000001',
    )
  })
})

describe('Function: insertEnrollmentsParams (the pair’s indexes)', () => {
  it('writes a waitlisted row’s pair into the course’s waitlist from its enrollment time', () => {
    const steps = insertEnrollmentsParams(
      tenant,
      'c-1',
      [{ enrollment: enrollment({ status: 'waitlisted' }), replaces: undefined, effects: {} }],
      { seatLimit: 1 },
    )
    expect(steps[0]?.item.Put?.Item).toMatchObject({
      sk: 'ENRPAIR#u-1#c-1',
      gsi2pk: 'T#t1#WAITLIST#c-1',
      gsi2sk: `${at}#e-1`,
    })
    expect(steps[0]?.item.Put?.Item).not.toHaveProperty('gsi1pk')
  })
})

describe('Function: saveEnrollmentParams (admissions)', () => {
  it('conditions a promotion on the course published with a free seat and the learner active', () => {
    // Prepare
    const before = enrollment({ status: 'waitlisted' })
    const after = enrollment({ holdsSeat: true, accessExpiresAt: ends, enrolledAt: later, updatedAt: later })

    // Act
    const steps = saveEnrollmentParams(tenant, { before, after, effects: {}, admission: { seatLimit: 3 } })

    // Assess
    expect(steps.map((s) => s.refusal)).toEqual([
      'stale',
      'pair_replaced',
      'course',
      'user_inactive',
      undefined,
      undefined,
      undefined,
    ])
    // The hour histogram: the waitlisted entry leaves its enrollment hour, the active one joins its own.
    expect(steps.slice(5).map((x) => readable('UpdateExpression', x.item.Update))).toEqual([
      'SET type = "range_histogram", kind = "enrolled", day = "2026-03-01" ADD h10_waitlisted -1',
      'SET type = "range_histogram", kind = "enrolled", day = "2026-03-02" ADD h10_active 1',
    ])
    expect(readable('UpdateExpression', steps[1]?.item.Update)).toBe(
      `SET status = "active", gsi1pk = "T#t1#ACCESSEXPIRY", gsi1sk = "${ends}#e-1" REMOVE gsi2pk, gsi2sk`,
    )
    expect(steps[2]?.item.Update?.Key).toEqual({ pk: 'T#t1', sk: 'COURSE#c-1' })
    expect(readable('UpdateExpression', steps[2]?.item.Update)).toBe('ADD seats_taken 1')
    expect(readable('ConditionExpression', steps[2]?.item.Update)).toBe(
      '(attribute_exists(pk)) AND (status = "published") AND (seats_taken <= 2)',
    )
    expect(steps[3]?.item.ConditionCheck?.Key).toEqual({ pk: 'T#t1', sk: 'USER#u-1' })
    expect(readable('ConditionExpression', steps[3]?.item.ConditionCheck)).toBe(
      '(attribute_exists(pk)) AND (is_active = true)',
    )
  })

  it('checks the course without moving it when the admission takes no seat (no limit)', () => {
    const before = enrollment({ status: 'pending_approval' })
    const after = enrollment({ updatedAt: later })
    const steps = saveEnrollmentParams(tenant, { before, after, effects: {}, admission: { seatLimit: null } })
    expect(readable('ConditionExpression', steps[2]?.item.ConditionCheck)).toBe(
      '(attribute_exists(pk)) AND (status = "published")',
    )
  })
})

describe('Functions: the queue reads', () => {
  it('reads a course’s waitlist oldest first, keys only', () => {
    const params = oldestWaitlistedParams(tenant, 'c-1')
    expect(params).toMatchObject({ IndexName: 'gsi2', ScanIndexForward: true })
    expect(readable('KeyConditionExpression', params)).toBe('gsi2pk = "T#t1#WAITLIST#c-1"')
    expect(readable('ProjectionExpression', params)).toBe('gsi2sk')
  })

  it('reads the tenant’s access ends up to and including a moment', () => {
    const params = accessEndedByParams(tenant, later)
    expect(params.IndexName).toBe('gsi1')
    expect(readable('KeyConditionExpression', params)).toBe(
      `(gsi1pk = "T#t1#ACCESSEXPIRY") AND (gsi1sk <= "${later}#~")`,
    )
  })
})
