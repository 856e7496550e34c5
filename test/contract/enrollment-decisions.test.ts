/**
 * `POST /enrollments/{id}/approve|deny` (api-additions section 4): the decisions of
 * `lms enrollment approve|deny` over the API, by the same services and with the same rules.
 */
import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { getCourse } from '../../shared/store/courses/courses-store.ts'
import { listOutboxEvents, listOutboxNotifications } from '../../shared/store/outbox/outbox-store.ts'
import { client } from '../helpers/http.ts'
import { course, enroll, user } from '../helpers/learning.ts'
import { newTenant, type TestTenant } from '../helpers/tenants.ts'

const status = async (t: TestTenant, id: string) =>
  (await t.api.get(`/api/v1/enrollments/${id}`)).body.data.status as string

const notifications = async (t: TestTenant, template: string) =>
  (await listOutboxNotifications(t.tenant)).filter((n) => n.template === template)

/** A course with approval and one seat, whose seat is taken; and a pending enrollment in it. */
async function fullCourseWithPending(t: TestTenant, waitlist: boolean) {
  const [a, b] = [await user(t), await user(t)]
  const k = await course(t, { settings: { requiresApproval: true, seatLimit: 1, waitlist } })
  const seated = await enroll(t, a.id, k.id)
  expect((await t.api.post(`/api/v1/enrollments/${seated.id}/approve`)).status).toBe(200)
  return { course: k, pending: await enroll(t, b.id, k.id) }
}

describe('POST /api/v1/enrollments/{id}/approve', () => {
  it('makes a pending enrollment active and tells the learner', async () => {
    // Prepare
    const t = await newTenant()
    const u = await user(t)
    const k = await course(t, { settings: { requiresApproval: true } })
    const pending = await enroll(t, u.id, k.id)
    expect(pending.status).toBe('pending_approval')

    // Act
    const r = await t.api.post(`/api/v1/enrollments/${pending.id}/approve`)

    // Assess
    expect(r.status).toBe(200)
    expect(r.body.data).toMatchObject({ id: pending.id, status: 'active', course_id: k.id })
    expect(await status(t, pending.id)).toBe('active')
    expect((await notifications(t, 'enrollment_approved')).map((n) => n.data.status)).toEqual(['active'])
  })

  it('waitlists when the course is full and keeps a waitlist', async () => {
    // Prepare
    const t = await newTenant()
    const { course: k, pending } = await fullCourseWithPending(t, true)

    // Act
    const r = await t.api.post(`/api/v1/enrollments/${pending.id}/approve`, {})

    // Assess
    expect(r.status).toBe(200)
    expect(r.body.data).toMatchObject({ id: pending.id, status: 'waitlisted' })
    expect(await status(t, pending.id)).toBe('waitlisted')
    expect((await getCourse(t.tenant, k.id, { consistent: true }))?.seatsTaken).toBe(1)
  })

  it('answers 422 when the course is full without a waitlist, changing nothing', async () => {
    // Prepare
    const t = await newTenant()
    const { course: k, pending } = await fullCourseWithPending(t, false)

    // Act
    const r = await t.api.post(`/api/v1/enrollments/${pending.id}/approve`)

    // Assess
    expect(r.status).toBe(422)
    expect(r.body.error.code).toBe(422)
    expect(await status(t, pending.id)).toBe('pending_approval')
    expect((await getCourse(t.tenant, k.id, { consistent: true }))?.seatsTaken).toBe(1)
  })

  it('answers 409 for an enrollment that is not pending approval, changing nothing', async () => {
    // Prepare
    const t = await newTenant()
    const u = await user(t)
    const active = await enroll(t, u.id, (await course(t)).id)

    // Act
    const approve = await t.api.post(`/api/v1/enrollments/${active.id}/approve`)
    const deny = await t.api.post(`/api/v1/enrollments/${active.id}/deny`)

    // Assess
    expect(approve.status).toBe(409)
    expect(approve.body.error.message).toMatch(/pending approval.*active/)
    expect(deny.status).toBe(409)
    expect(await status(t, active.id)).toBe('active')
    expect(await notifications(t, 'enrollment_approved')).toEqual([])
  })

  it('lets one of two concurrent approvals win; the other answers 409', async () => {
    // Prepare
    const t = await newTenant()
    const u = await user(t)
    const k = await course(t, { settings: { requiresApproval: true, seatLimit: 5 } })
    const pending = await enroll(t, u.id, k.id)

    // Act
    const answers = await Promise.all([
      t.api.post(`/api/v1/enrollments/${pending.id}/approve`),
      t.api.post(`/api/v1/enrollments/${pending.id}/approve`),
    ])

    // Assess
    expect(answers.map((r) => r.status).sort()).toEqual([200, 409])
    expect(await status(t, pending.id)).toBe('active')
    expect((await getCourse(t.tenant, k.id, { consistent: true }))?.seatsTaken).toBe(1)
    expect(await notifications(t, 'enrollment_approved')).toHaveLength(1)
  })
})

describe('POST /api/v1/enrollments/{id}/deny', () => {
  it('drops a pending enrollment, with enrollment.dropped, and gives the learner the reason', async () => {
    // Prepare
    const t = await newTenant()
    const u = await user(t)
    const k = await course(t, { settings: { requiresApproval: true } })
    const pending = await enroll(t, u.id, k.id)

    // Act
    const r = await t.api.post(`/api/v1/enrollments/${pending.id}/deny`, { reason: 'Night shift only' })

    // Assess
    expect(r.status).toBe(200)
    expect(r.body.data).toMatchObject({ id: pending.id, status: 'dropped' })
    expect(await status(t, pending.id)).toBe('dropped')
    const dropped = (await listOutboxEvents(t.tenant)).filter((e) => e.event === 'enrollment.dropped')
    expect(dropped.map((e) => e.data)).toEqual([{ enrollmentId: pending.id, userId: u.id, courseId: k.id }])
    expect((await notifications(t, 'enrollment_denied')).map((n) => n.data.reason)).toEqual([
      'Night shift only',
    ])
  })

  it('refuses an unknown field or a reason that is not text (400 naming it), changing nothing', async () => {
    // Prepare
    const t = await newTenant()
    const u = await user(t)
    const pending = await enroll(t, u.id, (await course(t, { settings: { requiresApproval: true } })).id)

    // Act
    const unknown = await t.api.post(`/api/v1/enrollments/${pending.id}/deny`, { motive: 'x' })
    const notText = await t.api.post(`/api/v1/enrollments/${pending.id}/deny`, { reason: 5 })
    const approveWithField = await t.api.post(`/api/v1/enrollments/${pending.id}/approve`, { force: true })

    // Assess
    expect(unknown.status).toBe(400)
    expect(unknown.body.error.message).toMatch(/motive/)
    expect(notText.status).toBe(400)
    expect(notText.body.error.message).toMatch(/reason/)
    expect(approveWithField.status).toBe(400)
    expect(approveWithField.body.error.message).toMatch(/force/)
    expect(await status(t, pending.id)).toBe('pending_approval')
  })
})

describe('Enrollment decisions: keys and tenants', () => {
  it('needs the write scope (a read key gets 403) and answers 404 for another tenant’s enrollment', async () => {
    // Prepare
    const t = await newTenant()
    const other = await newTenant()
    const u = await user(t)
    const pending = await enroll(t, u.id, (await course(t, { settings: { requiresApproval: true } })).id)
    const reader = client(t.slug, await t.key(['read']))
    const writer = client(t.slug, await t.key(['read', 'write']))

    // Act
    const byReader = await reader.post(`/api/v1/enrollments/${pending.id}/deny`)
    const elsewhere = await other.api.post(`/api/v1/enrollments/${pending.id}/approve`)
    const missing = await t.api.post(`/api/v1/enrollments/${randomUUID()}/approve`)
    const notAnId = await t.api.post('/api/v1/enrollments/nope/deny')
    const byWriter = await writer.post(`/api/v1/enrollments/${pending.id}/deny`)

    // Assess
    expect(byReader.status).toBe(403)
    expect(elsewhere.status).toBe(404)
    expect(missing.status).toBe(404)
    expect(notAnId.status).toBe(404)
    expect(byWriter.status).toBe(200)
    expect(byWriter.body.data.status).toBe('dropped')
  })
})
