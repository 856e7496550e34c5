import { readable } from '../../helpers/readable-expression.ts'
import { describe, expect, it } from 'vitest'
import type { Enrollment } from '../../../shared/domain/enrollments/enrollment.ts'
import { completeEnrollment } from '../../../shared/domain/enrollments/progress.ts'
import { newEvent } from '../../../shared/domain/events.ts'
import type { TenantContext } from '../../../shared/domain/tenants/tenant.ts'
import { anEnrollment } from '../../helpers/builders.ts'
import {
  completionsParams,
  courseEnrollmentsParams,
  tenantEnrollmentsParams,
  userEnrollmentsParams,
} from '../../../shared/store/enrollments/enrollments-list.ts'
import {
  getEnrollmentParams,
  getEnrollmentsParams,
  getPairsParams,
  insertEnrollmentsParams,
  saveEnrollmentParams,
  type NewEnrollment,
} from '../../../shared/store/enrollments/enrollments-store.ts'

const tenant: TenantContext = { id: '11111111-1111-4111-8111-111111111111', plan: 'growth' }
const pk = `T#${tenant.id}`
const at = '2026-03-01T10:00:00.000Z'
const later = '2026-03-02T10:00:00.000Z'

const enrollment = (over: Partial<Enrollment> = {}): Enrollment =>
  anEnrollment({ id: 'e-1', userId: 'u-1', courseId: 'c-1', ...over }, at)

const newRow = (over: Partial<Enrollment> = {}): NewEnrollment => ({
  enrollment: enrollment(over),
  replaces: undefined,
  effects: {},
})

describe('Function: getEnrollmentParams and the batch reads', () => {
  it('addresses enrollments and pair guards in the tenant’s partition, each once', () => {
    expect(getEnrollmentParams(tenant, 'e-1')).toEqual({ Key: { pk, sk: 'ENROLL#e-1' } })
    expect(getEnrollmentsParams(tenant, ['e-1', 'e-2', 'e-1'])).toEqual([
      { pk, sk: 'ENROLL#e-1' },
      { pk, sk: 'ENROLL#e-2' },
    ])
    expect(
      getPairsParams(tenant, [
        { userId: 'u-1', courseId: 'c-1' },
        { userId: 'u-1', courseId: 'c-1' },
        { userId: 'u-1', courseId: 'c-2' },
      ]),
    ).toEqual([
      { pk, sk: 'ENRPAIR#u-1#c-1' },
      { pk, sk: 'ENRPAIR#u-1#c-2' },
    ])
  })
})

describe('Function: userEnrollmentsParams and courseEnrollmentsParams', () => {
  it('query the user’s (gsi4) and the course’s (gsi5) partition of the tenant', () => {
    expect(userEnrollmentsParams(tenant, 'u-1')).toEqual({
      IndexName: 'gsi4',
      KeyConditionExpression: '#n0 = :v0',
      ExpressionAttributeNames: { '#n0': 'gsi4pk' },
      ExpressionAttributeValues: { ':v0': `${pk}#UENR#u-1` },
    })
    expect(courseEnrollmentsParams(tenant, 'c-1')).toMatchObject({
      IndexName: 'gsi5',
      ExpressionAttributeNames: { '#n0': 'gsi5pk' },
      ExpressionAttributeValues: { ':v0': `${pk}#CENR#c-1` },
    })
  })
})

describe('Function: tenantEnrollmentsParams', () => {
  const base = { sortBy: 'enrolled_at', order: 'asc', offset: 0, limit: 20 } as const

  it('reads the tenant’s index of the sort, without a filter when none is asked', () => {
    expect(tenantEnrollmentsParams(tenant, { ...base, sortBy: 'due_date', order: 'desc' })).toEqual({
      IndexName: 'gsi2',
      KeyConditionExpression: '#n0 = :v0',
      ExpressionAttributeNames: { '#n0': 'gsi2pk' },
      ExpressionAttributeValues: { ':v0': `${pk}#ENROLLMENTS` },
      ScanIndexForward: false,
    })
  })

  it('filters by status and dates, a missing due date never being after one', () => {
    // Act
    const params = tenantEnrollmentsParams(tenant, {
      ...base,
      status: 'dropped',
      dueBefore: '2026-06-01T00:00:00Z',
      dueAfter: '2026-01-01T00:00:00Z',
      createdAfter: '2025-01-01T00:00:00Z',
    })

    // Assess
    expect(params).toEqual({
      IndexName: 'gsi1',
      KeyConditionExpression: '#n0 = :v0',
      FilterExpression:
        '(#n1 = :v1) AND (#n2 < :v2) AND ((#n2 > :v3) AND (attribute_type(#n2, :v4))) AND (#n3 > :v5)',
      ExpressionAttributeNames: { '#n0': 'gsi1pk', '#n1': 'status', '#n2': 'due_date', '#n3': 'created_at' },
      ExpressionAttributeValues: {
        ':v0': `${pk}#ENROLLMENTS`,
        ':v1': 'dropped',
        ':v2': '2026-06-01T00:00:00Z',
        ':v3': '2026-01-01T00:00:00Z',
        ':v4': 'S',
        ':v5': '2025-01-01T00:00:00Z',
      },
      ScanIndexForward: true,
    })
  })
})

describe('Function: completionsParams', () => {
  it('reads completed enrollments newest first, below the missing-date marker', () => {
    expect(completionsParams(tenant, 5000)).toEqual({
      IndexName: 'gsi3',
      KeyConditionExpression: '(#n0 = :v0) AND (#n1 < :v1)',
      ExpressionAttributeNames: { '#n0': 'gsi3pk', '#n1': 'gsi3sk' },
      ExpressionAttributeValues: { ':v0': `${pk}#ENROLLMENTS`, ':v1': '~' },
      ScanIndexForward: false,
      Limit: 1000,
    })
  })
})

describe('Function: insertEnrollmentsParams', () => {
  it('guards a first enrollment as new, its user as active, and the course as published with a free seat', () => {
    // Act
    const steps = insertEnrollmentsParams(tenant, 'c-1', [newRow({ holdsSeat: true })], { seatLimit: 5 })

    // Assess
    expect(steps.map((s) => s.refusal)).toEqual([
      { row: 0, kind: 'duplicate' },
      { row: 0, kind: 'duplicate' },
      { row: 0, kind: 'user_inactive' },
      'course',
      undefined,
      undefined,
      undefined,
      undefined,
    ])
    const [pair, record, user, course, counters, tally, day, hours] = steps.map((s) => s.item)
    // And the course's tally of its creation day (decision 0023).
    expect(day?.Update?.Key).toEqual({ pk, sk: `RPTCDAY#c-1#${at.slice(0, 10)}` })
    // And the tenant's enrollments of that hour, by status (decision 0026).
    expect(hours?.Update?.Key).toEqual({ pk, sk: `RPTHOUR#enrolled#${at.slice(0, 10)}` })
    expect(readable('UpdateExpression', hours?.Update)).toContain(`ADD h${at.slice(11, 13)}_active 1`)
    // The course's report tally moves with it: one more enrollment.
    expect(tally?.Update).toEqual({
      Key: { pk, sk: 'RPTCOURSE#c-1' },
      UpdateExpression: 'SET #n0 = :v0, #n1 = :v1 ADD #n2 :v2',
      ExpressionAttributeNames: { '#n0': 'course_id', '#n1': 'type', '#n2': 'enrollments' },
      ExpressionAttributeValues: { ':v0': 'c-1', ':v1': 'course_report', ':v2': 1 },
    })
    expect(pair?.Put).toMatchObject({
      Item: { pk, sk: 'ENRPAIR#u-1#c-1', enrollment_id: 'e-1', status: 'active' },
      ConditionExpression: 'attribute_not_exists(#n0)',
      ExpressionAttributeNames: { '#n0': 'pk' },
    })
    expect(record?.Put).toMatchObject({
      Item: { pk, sk: 'ENROLL#e-1', status: 'active', holds_seat: true, gsi4pk: `${pk}#UENR#u-1` },
      ConditionExpression: 'attribute_not_exists(#n0)',
    })
    expect(user?.ConditionCheck).toEqual({
      Key: { pk, sk: 'USER#u-1' },
      ConditionExpression: '(attribute_exists(#n0)) AND (#n1 = :v0)',
      ExpressionAttributeNames: { '#n0': 'pk', '#n1': 'is_active' },
      ExpressionAttributeValues: { ':v0': true },
    })
    expect(course?.Update).toEqual({
      Key: { pk, sk: 'COURSE#c-1' },
      UpdateExpression: 'ADD #n0 :v0, #n1 :v1',
      ConditionExpression: '(attribute_exists(#n2)) AND (#n3 = :v2) AND (#n1 <= :v3)',
      ExpressionAttributeNames: {
        '#n0': 'enrollment_count',
        '#n1': 'seats_taken',
        '#n2': 'pk',
        '#n3': 'status',
      },
      ExpressionAttributeValues: { ':v0': 1, ':v1': 1, ':v2': 'published', ':v3': 4 },
    })
    expect(counters?.Update).toMatchObject({
      Key: { pk, sk: 'COUNTERS' },
      UpdateExpression: 'ADD #n0 :v0, #n1 :v1, #n2 :v2',
      ExpressionAttributeNames: {
        '#n0': 'enrollments_total',
        '#n1': 'enrollments_status_active',
        // The compliance histogram's assignments without a completion (decision 0023).
        '#n2': 'assign_none',
      },
      ExpressionAttributeValues: { ':v0': 1, ':v1': 1, ':v2': 1 },
    })
    expect(counters?.Update?.ConditionExpression).toBeUndefined()
  })

  it('guards a reactivation on the pair status and the record version as read, moving counters from them', () => {
    // Prepare
    const dropped = enrollment({ status: 'dropped', updatedAt: at })
    const row: NewEnrollment = {
      enrollment: enrollment({ updatedAt: later, enrolledAt: later }),
      replaces: {
        pair: { userId: 'u-1', courseId: 'c-1', enrollmentId: 'e-1', status: 'dropped' },
        enrollment: dropped,
      },
      effects: {},
    }

    // Act
    const [pair, record, , , counters] = insertEnrollmentsParams(tenant, 'c-1', [row], { seatLimit: null })

    // Assess
    expect(pair?.item.Put).toMatchObject({
      ConditionExpression: '(#n0 = :v0) AND (#n1 = :v1)',
      ExpressionAttributeNames: { '#n0': 'enrollment_id', '#n1': 'status' },
      ExpressionAttributeValues: { ':v0': 'e-1', ':v1': 'dropped' },
    })
    expect(record?.item.Put).toMatchObject({
      ConditionExpression: '(#n0 = :v0) AND (#n1 = :v1)',
      ExpressionAttributeNames: { '#n0': 'updated_at', '#n1': 'status' },
      ExpressionAttributeValues: { ':v0': at, ':v1': 'dropped' },
    })
    expect(counters?.item.Update).toMatchObject({
      ExpressionAttributeNames: { '#n0': 'enrollments_status_dropped', '#n1': 'enrollments_status_active' },
      ExpressionAttributeValues: { ':v0': -1, ':v1': 1 },
    })
  })

  it('numbers each row’s refusals, checks each user once, and writes the rows’ effects unconditioned', () => {
    // Prepare
    const event = newEvent(
      'enrollment.created',
      { enrollmentId: 'e-2', userId: 'u-2', courseId: 'c-1', status: 'active' },
      at,
    )
    const rows = [newRow(), { ...newRow({ id: 'e-2', userId: 'u-2' }), effects: { events: [event] } }]

    // Act
    const steps = insertEnrollmentsParams(tenant, 'c-1', rows, { seatLimit: 3 })

    // Assess
    expect(steps.map((s) => s.refusal)).toEqual([
      { row: 0, kind: 'duplicate' },
      { row: 0, kind: 'duplicate' },
      { row: 1, kind: 'duplicate' },
      { row: 1, kind: 'duplicate' },
      undefined,
      { row: 0, kind: 'user_inactive' },
      { row: 1, kind: 'user_inactive' },
      'course',
      undefined,
      undefined,
      undefined,
      undefined,
    ])
    // One tally step for the group: two enrollments; one day tally step, the same day's.
    expect(steps[9]?.item.Update?.ExpressionAttributeValues).toMatchObject({ ':v2': 2 })
    expect(steps[10]?.item.Update?.ExpressionAttributeValues).toMatchObject({ ':v3': 2 })
    expect(steps[4]?.item.Put?.Item).toMatchObject({
      pk,
      sk: `OUTBOX#${at}#${event.id}`,
      event: 'enrollment.created',
    })
    expect(steps[4]?.item.Put?.ConditionExpression).toBeUndefined()
    // No row takes a seat: seats are neither added nor a condition.
    expect(steps[7]?.item.Update).toMatchObject({
      UpdateExpression: 'ADD #n0 :v0',
      ConditionExpression: '(attribute_exists(#n1)) AND (#n2 = :v1)',
      ExpressionAttributeNames: { '#n0': 'enrollment_count', '#n1': 'pk', '#n2': 'status' },
      ExpressionAttributeValues: { ':v0': 2, ':v1': 'published' },
    })
  })

  it('imports history into any course, for a former user: no published or active-user condition', () => {
    // Act
    const steps = insertEnrollmentsParams(tenant, 'c-1', [newRow({ status: 'completed', completedAt: at })], {
      seatLimit: null,
      requirePublished: false,
      requireActiveUsers: false,
    })

    // Assess
    expect(steps.map((s) => s.refusal)).toEqual([
      { row: 0, kind: 'duplicate' },
      { row: 0, kind: 'duplicate' },
      'course',
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ])
    // The import counts in the hour it was enrolled and the hour it was completed.
    expect(steps.slice(6).map((x) => x.item.Update?.Key?.sk)).toEqual([
      expect.stringMatching(/^RPTHOUR#enrolled#/),
      expect.stringMatching(/^RPTHOUR#completed#/),
    ])
    expect(steps[2]?.item.Update?.ConditionExpression).toBe('attribute_exists(#n1)')
    expect(steps[3]?.item.Update?.ExpressionAttributeNames).toEqual({
      '#n0': 'enrollments_total',
      '#n1': 'enrollments_status_completed',
      '#n2': 'completions_total',
    })
  })

  it('refuses a group with two rows of one user (one pair item each)', () => {
    expect(() =>
      insertEnrollmentsParams(tenant, 'c-1', [newRow(), newRow({ id: 'e-2' })], { seatLimit: null }),
    ).toThrow('one row per user')
  })
})

describe('Function: saveEnrollmentParams', () => {
  it('replaces the record as read (stale otherwise) and nothing else when only the due date moves', () => {
    // Act
    const steps = saveEnrollmentParams(tenant, {
      before: enrollment(),
      after: enrollment({ dueDate: later, updatedAt: later }),
      effects: {},
    })

    // Assess
    expect(steps).toHaveLength(1)
    expect(steps[0]?.refusal).toBe('stale')
    expect(steps[0]?.item.Put).toMatchObject({
      Item: { pk, sk: 'ENROLL#e-1', due_date: later, gsi2sk: `${later}#e-1` },
      ConditionExpression: '(#n0 = :v0) AND (#n1 = :v1) AND (attribute_not_exists(#n2))',
      ExpressionAttributeNames: { '#n0': 'updated_at', '#n1': 'status', '#n2': 'scores_linked' },
      ExpressionAttributeValues: { ':v0': at, ':v1': 'active' },
    })
  })

  it('keeps the AGS mark of a linked enrollment (refused if it changed) and tells its events so', () => {
    // Prepare
    const linked = enrollment({ scoresLinked: true })
    const event = newEvent(
      'enrollment.dropped',
      { enrollmentId: 'e-1', userId: 'u-1', courseId: 'c-1' },
      later,
    )

    // Act
    const [put, ...rest] = saveEnrollmentParams(tenant, {
      before: linked,
      after: { ...linked, status: 'dropped', updatedAt: later },
      effects: { events: [event] },
    })
    const outbox = rest.find((s) => s.item.Put?.Item?.type === 'event')

    // Assess
    expect(put?.item.Put?.Item?.scores_linked).toBe(true)
    expect(put?.item.Put?.ConditionExpression).toBe('(#n0 = :v0) AND (#n1 = :v1) AND (#n2 = :v2)')
    expect(put?.item.Put?.ExpressionAttributeValues).toMatchObject({ ':v2': true })
    expect(outbox?.item.Put?.Item).toMatchObject({ event: 'enrollment.dropped', scores_linked: true })
    expect(outbox?.item.Put?.Item?.data).not.toHaveProperty('scores_linked')
  })

  it('moves the pair guard, frees the seat and moves the counters on a drop', () => {
    // Prepare
    const current = enrollment({ holdsSeat: true })
    const next = enrollment({ status: 'dropped', holdsSeat: false, updatedAt: later })

    // Act
    const event = newEvent(
      'enrollment.dropped',
      { enrollmentId: 'e-1', userId: 'u-1', courseId: 'c-1' },
      later,
    )
    const steps = saveEnrollmentParams(tenant, { before: current, after: next, effects: { events: [event] } })
    const [, pair, course, counters, outbox] = steps

    // Assess
    expect(pair?.refusal).toBe('pair_replaced')
    // A dropped pair leaves both sparse indexes (access expiry, waitlist).
    expect(pair?.item.Update).toEqual({
      Key: { pk, sk: 'ENRPAIR#u-1#c-1' },
      UpdateExpression: 'SET #n0 = :v0 REMOVE #n1, #n2, #n3, #n4',
      ConditionExpression: '#n5 = :v1',
      ExpressionAttributeNames: {
        '#n0': 'status',
        '#n1': 'gsi1pk',
        '#n2': 'gsi1sk',
        '#n3': 'gsi2pk',
        '#n4': 'gsi2sk',
        '#n5': 'enrollment_id',
      },
      ExpressionAttributeValues: { ':v0': 'dropped', ':v1': 'e-1' },
    })
    expect(course?.item.Update).toEqual({
      Key: { pk, sk: 'COURSE#c-1' },
      UpdateExpression: 'ADD #n0 :v0, #n1 :v1',
      ExpressionAttributeNames: { '#n0': 'enrollment_count', '#n1': 'seats_taken' },
      ExpressionAttributeValues: { ':v0': -1, ':v1': -1 },
    })
    expect(counters?.item.Update).toMatchObject({
      Key: { pk, sk: 'COUNTERS' },
      ExpressionAttributeNames: { '#n0': 'enrollments_status_active', '#n1': 'enrollments_status_dropped' },
      ExpressionAttributeValues: { ':v0': -1, ':v1': 1 },
    })
    expect(outbox?.item.Put?.Item).toMatchObject({ event: 'enrollment.dropped', event_id: event.id })
    // The course's report tally: one enrollment fewer still, one more dropped.
    expect(steps[5]?.item.Update).toMatchObject({
      Key: { pk, sk: 'RPTCOURSE#c-1' },
      ExpressionAttributeNames: { '#n2': 'drop_offs' },
      ExpressionAttributeValues: { ':v2': 1 },
    })
    // And its creation day's tally, the same moves (decision 0023).
    expect(steps[6]?.item.Update).toMatchObject({
      Key: { pk, sk: expect.stringMatching(/^RPTCDAY#c-1#/) },
      ExpressionAttributeValues: { ':v3': 1 },
    })
    // And the tenant's hour histogram: the enrollment's hour moves from active to dropped (0026).
    expect(readable('UpdateExpression', steps[7]?.item.Update)).toMatch(
      /ADD h\d\d_active -1, h\d\d_dropped 1$/,
    )
    expect(steps).toHaveLength(8)
  })

  it('writes the certificate a completion issues, once, as a new item', () => {
    // Prepare
    const before = enrollment()
    const after = completeEnrollment(before, later, 'cert-1', 365)

    // Act
    const steps = saveEnrollmentParams(tenant, { before, after, effects: {} })
    const again = saveEnrollmentParams(tenant, {
      before: after,
      after: { ...after, updatedAt: '2026-03-03' },
      effects: {},
    })

    // Assess
    const certificate = steps.find((s) => s.refusal === 'certificate_exists')
    expect(certificate?.item.Put).toEqual({
      Item: {
        pk,
        sk: 'CERT#cert-1',
        type: 'certificate',
        id: 'cert-1',
        number: after.certificateNumber,
        user_id: 'u-1',
        course_id: 'c-1',
        enrollment_id: 'e-1',
        issued_at: later,
        expires_at: after.certificateExpiresAt,
      },
      ConditionExpression: 'attribute_not_exists(#n0)',
      ExpressionAttributeNames: { '#n0': 'pk' },
    })
    expect(after.certificateExpiresAt).not.toBeNull()
    expect(again.some((s) => s.refusal === 'certificate_exists')).toBe(false)
  })
})
