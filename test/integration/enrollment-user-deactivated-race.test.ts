/**
 * Attack: deactivate a user between the enrollment engine's read of that user and its write.
 * The race is made deterministic without timing and without a hook in product code: a wrapper
 * on the DynamoDB sender (the seam every store call goes through) deactivates the user just before the
 * enrollment's transaction is sent, i.e. after every read the decision was made on.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { RuleViolationError } from '../../shared/domain/errors.ts'
import {
  bulkEnroll,
  createEnrollment,
  dropEnrollment,
} from '../../shared/services/enrollments/enrollments-service.ts'
import { deactivateUser } from '../../shared/services/users/users-service.ts'
import { listUserEnrollments } from '../../shared/store/enrollments/enrollments-list.ts'
import { listOutboxEvents } from '../../shared/store/outbox/outbox-store.ts'
import { beforeNextTransaction as beforeNext } from '../helpers/dynamodb-calls.ts'
import { course, user } from '../helpers/learning.ts'
import { newTenant, type TestTenant } from '../helpers/tenants.ts'

let unwrap: (() => void) | undefined

/** Runs `change` once, right before the next transaction leaves the sender. */
function beforeNextTransaction(change: () => Promise<void>): void {
  unwrap = beforeNext(change)
}

afterEach(() => {
  unwrap?.()
})

async function createdEvents(t: TestTenant) {
  return (await listOutboxEvents(t.tenant)).filter((e) => e.event === 'enrollment.created')
}

async function expectNothingWritten(t: TestTenant, userId: string, courseId: string) {
  expect(await listUserEnrollments(t.tenant, userId)).toEqual([])
  expect(await createdEvents(t)).toEqual([])
  expect((await t.api.get(`/api/v1/courses/${courseId}`)).body.data.enrollment_count).toBe(0)
  expect((await t.api.get(`/api/v1/users/${userId}`)).body.data.is_active).toBe(false)
}

describe('Attack: a user deactivated between the enrollment decision and its write', () => {
  it('refuses the enrollment with 422 user_inactive and writes nothing (course without seat limit)', async () => {
    // Prepare
    const t = await newTenant()
    const u = await user(t)
    const c = await course(t)
    beforeNextTransaction(() => deactivateUser(t.tenant, u.id))

    // Act
    const attempt = createEnrollment(t.tenant, { userId: u.id, courseId: c.id, dueDate: null })

    // Assess
    await expect(attempt).rejects.toSatisfy(
      (e) => e instanceof RuleViolationError && e.code === 'enrollment.user_inactive',
    )
    await expectNothingWritten(t, u.id, c.id)
  })

  it('refuses the enrollment into a limited seat and leaves the seat free for an active learner', async () => {
    // Prepare
    const t = await newTenant()
    const [u, other] = [await user(t), await user(t)]
    const c = await course(t, { settings: { seatLimit: 1 } })
    beforeNextTransaction(() => deactivateUser(t.tenant, u.id))

    // Act
    const attempt = createEnrollment(t.tenant, { userId: u.id, courseId: c.id, dueDate: null })

    // Assess
    await expect(attempt).rejects.toSatisfy(
      (e) => e instanceof RuleViolationError && e.code === 'enrollment.user_inactive',
    )
    await expectNothingWritten(t, u.id, c.id)
    const seat = await createEnrollment(t.tenant, { userId: other.id, courseId: c.id, dueDate: null })
    expect(seat.status).toBe('active')
  })

  it('does not reactivate the dropped enrollment of a user deactivated meanwhile', async () => {
    // Prepare
    const t = await newTenant()
    const u = await user(t)
    const c = await course(t)
    const first = await createEnrollment(t.tenant, { userId: u.id, courseId: c.id, dueDate: null })
    await dropEnrollment(t.tenant, first.id)
    beforeNextTransaction(() => deactivateUser(t.tenant, u.id))

    // Act
    const attempt = createEnrollment(t.tenant, { userId: u.id, courseId: c.id, dueDate: null })

    // Assess
    await expect(attempt).rejects.toSatisfy(
      (e) => e instanceof RuleViolationError && e.code === 'enrollment.user_inactive',
    )
    expect((await listUserEnrollments(t.tenant, u.id)).map((e) => e.status)).toEqual(['dropped'])
    expect(await createdEvents(t)).toHaveLength(1)
    expect((await t.api.get(`/api/v1/courses/${c.id}`)).body.data.enrollment_count).toBe(0)
  })

  it('refuses only the deactivated user’s bulk row; the other rows of the transaction are written', async () => {
    // Prepare
    const t = await newTenant()
    const [gone, stays] = [await user(t), await user(t)]
    const c = await course(t)
    beforeNextTransaction(() => deactivateUser(t.tenant, gone.id))

    // Act
    const results = await bulkEnroll(t.tenant, [
      { userId: gone.id, courseId: c.id, dueDate: null },
      { userId: stays.id, courseId: c.id, dueDate: null },
    ])

    // Assess
    expect(results[0]).toEqual({ error: 'user_inactive' })
    expect(results[1]).toMatchObject({ ok: { userId: stays.id, status: 'active' } })
    expect(await listUserEnrollments(t.tenant, gone.id)).toEqual([])
    expect((await createdEvents(t)).map((e) => e.data.userId)).toEqual([stays.id])
    expect((await t.api.get(`/api/v1/courses/${c.id}`)).body.data.enrollment_count).toBe(1)
  })
})
