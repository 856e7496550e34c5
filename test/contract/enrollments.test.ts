import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { configureCourse } from '../../shared/services/courses-service.ts'
import { listOutboxEvents, listOutboxNotifications } from '../../shared/store/outbox-store.ts'
import { newTenant, userBody, type TestTenant } from '../helpers/tenants.ts'

async function user(t: TestTenant, over: Record<string, unknown> = {}) {
  const r = await t.api.post('/api/v1/users', userBody(over))
  expect(r.status).toBe(201)
  return r.body.data as { id: string; email: string }
}

async function course(t: TestTenant, publish = true, modules = 0) {
  const r = await t.api.post('/api/v1/courses', { title: `Course ${randomUUID().slice(0, 6)}` })
  expect(r.status).toBe(201)
  for (let i = 0; i < modules; i++) {
    expect(
      (
        await t.api.post(`/api/v1/courses/${r.body.data.id}/modules`, {
          title: `M${i}`,
          module_type: 'video',
        })
      ).status,
    ).toBe(201)
  }
  if (publish)
    expect((await t.api.patch(`/api/v1/courses/${r.body.data.id}`, { status: 'published' })).status).toBe(200)
  return r.body.data as { id: string; title: string }
}

describe('Route: POST /api/v1/enrollments', () => {
  it('enrolls into a published course: 201, enrollment.created and a confirmation notification', async () => {
    const t = await newTenant()
    const u = await user(t)
    const c = await course(t)
    const reply = await t.api.post('/api/v1/enrollments', {
      user_id: u.id,
      course_id: c.id,
      due_date: '2027-01-01T00:00:00Z',
    })
    expect(reply.status).toBe(201)
    expect(reply.body.data).toMatchObject({
      user_id: u.id,
      course_id: c.id,
      status: 'active',
      due_date: '2027-01-01T00:00:00.000Z',
      completed_at: null,
      source: 'native',
      progress_percent: 0,
    })
    const events = (await listOutboxEvents(t.tenant)).filter((e) => e.event === 'enrollment.created')
    expect(events.map((e) => e.data)).toEqual([
      { enrollmentId: reply.body.data.id, userId: u.id, courseId: c.id, status: 'active' },
    ])
    const notes = await listOutboxNotifications(t.tenant)
    expect(notes).toHaveLength(1)
    expect(notes[0]).toMatchObject({ template: 'enrollment_confirmation', userId: u.id })
    expect((await t.api.get(`/api/v1/courses/${c.id}`)).body.data.enrollment_count).toBe(1)
  })

  it('answers 404 for a missing user or course, 409 for a live enrollment, 422 for a draft', async () => {
    const t = await newTenant()
    const u = await user(t)
    const c = await course(t)
    const draft = await course(t, false)
    expect((await t.api.post('/api/v1/enrollments', { user_id: randomUUID(), course_id: c.id })).status).toBe(
      404,
    )
    expect((await t.api.post('/api/v1/enrollments', { user_id: u.id, course_id: randomUUID() })).status).toBe(
      404,
    )
    expect((await t.api.post('/api/v1/enrollments', { user_id: u.id, course_id: c.id })).status).toBe(201)
    const again = await t.api.post('/api/v1/enrollments', { user_id: u.id, course_id: c.id })
    expect(again.status).toBe(409)
    const notPublished = await t.api.post('/api/v1/enrollments', { user_id: u.id, course_id: draft.id })
    expect(notPublished.status).toBe(422)
    expect(notPublished.body.error.message).toMatch(/not published/)
    const bad = await t.api.post('/api/v1/enrollments', { user_id: 'x', course_id: c.id })
    expect(bad.status).toBe(400)
    expect(bad.body.error.message).toContain('user_id')
  })

  it('never activates more enrollments than seats under concurrency', async () => {
    const t = await newTenant()
    const c = await course(t)
    await configureCourse(t.tenant, c.id, { seatLimit: 3 })
    const users = await Promise.all(Array.from({ length: 10 }, () => user(t)))
    const replies = await Promise.all(
      users.map((u) => t.api.post('/api/v1/enrollments', { user_id: u.id, course_id: c.id })),
    )
    expect(replies.filter((r) => r.status === 201)).toHaveLength(3)
    expect(replies.filter((r) => r.status === 422)).toHaveLength(7)
  })

  it('waitlists when full and the waitlist is on; pending_approval when approval is required', async () => {
    const t = await newTenant()
    const c = await course(t)
    await configureCourse(t.tenant, c.id, { seatLimit: 1, waitlist: true })
    const [a, b] = [await user(t), await user(t)]
    expect(
      (await t.api.post('/api/v1/enrollments', { user_id: a.id, course_id: c.id })).body.data.status,
    ).toBe('active')
    expect(
      (await t.api.post('/api/v1/enrollments', { user_id: b.id, course_id: c.id })).body.data.status,
    ).toBe('waitlisted')
    const d = await course(t)
    await configureCourse(t.tenant, d.id, { requiresApproval: true })
    expect(
      (await t.api.post('/api/v1/enrollments', { user_id: a.id, course_id: d.id })).body.data.status,
    ).toBe('pending_approval')
  })
})

describe('Route: POST /api/v1/enrollments/bulk', () => {
  it('runs each row independently and answers 207 with indexed errors', async () => {
    const t = await newTenant()
    const [a, b] = [await user(t), await user(t)]
    const c = await course(t)
    const draft = await course(t, false)
    const reply = await t.api.post('/api/v1/enrollments/bulk', {
      enrollments: [
        { user_id: a.id, course_id: c.id },
        { user_id: b.id, course_id: randomUUID() },
        { user_id: a.id, course_id: c.id },
        { user_id: b.id, course_id: draft.id },
        { user_id: randomUUID(), course_id: c.id },
        { user_id: 'nope', course_id: c.id },
        { user_id: b.id, course_id: c.id },
      ],
    })
    expect(reply.status).toBe(207)
    expect(reply.body.error).toBeNull()
    expect(reply.body.data.created).toBe(2)
    expect(reply.body.data.errors.map((e: { index: number; code: string }) => [e.index, e.code])).toEqual([
      [1, 'course_not_found'],
      [2, 'duplicate'],
      [3, 'not_published'],
      [4, 'user_not_found'],
      [5, 'invalid_row'],
    ])
  })

  it('answers 201 when every row succeeds, and 400 for an empty or oversized list', async () => {
    const t = await newTenant()
    const c = await course(t)
    const users = await Promise.all(Array.from({ length: 30 }, () => user(t)))
    const reply = await t.api.post('/api/v1/enrollments/bulk', {
      enrollments: users.map((u) => ({ user_id: u.id, course_id: c.id })),
    })
    expect(reply.status).toBe(201)
    expect(reply.body.data).toMatchObject({ created: 30, skipped: 0, errors: [] })
    expect((await t.api.get(`/api/v1/courses/${c.id}`)).body.data.enrollment_count).toBe(30)
    expect((await t.api.post('/api/v1/enrollments/bulk', { enrollments: [] })).status).toBe(400)
    const big = Array.from({ length: 501 }, () => ({ user_id: randomUUID(), course_id: c.id }))
    expect((await t.api.post('/api/v1/enrollments/bulk', { enrollments: big })).status).toBe(400)
  })
})

describe('Learner activity and completion', () => {
  it('completes the enrollment when every required module is done, issuing a certificate', async () => {
    const t = await newTenant()
    const u = await user(t)
    const c = await course(t, false)
    const m1 = (await t.api.post(`/api/v1/courses/${c.id}/modules`, { title: 'Intro', module_type: 'video' }))
      .body.data
    const m2 = (
      await t.api.post(`/api/v1/courses/${c.id}/modules`, {
        title: 'Extra',
        module_type: 'html',
        is_required: false,
      })
    ).body.data
    const m3 = (
      await t.api.post(`/api/v1/courses/${c.id}/modules`, { title: 'Pack', module_type: 'archive' })
    ).body.data
    await t.api.patch(`/api/v1/courses/${c.id}`, { status: 'published' })
    await configureCourse(t.tenant, c.id, { certificateValidityDays: 30, ceu: 1.5 })
    const e = (await t.api.post('/api/v1/enrollments', { user_id: u.id, course_id: c.id })).body.data
    const { recordActivity, recordDownload } = await import('../../shared/services/learner-service.ts')
    await recordActivity(t.tenant, e.id, {
      moduleId: m1.id,
      kind: 'complete',
      score: 80,
      timeSpentSeconds: 120,
      at: '2026-03-01T10:00:00Z',
    })
    await recordActivity(t.tenant, e.id, {
      moduleId: m2.id,
      kind: 'progress',
      timeSpentSeconds: 30,
      at: '2026-03-01T10:05:00Z',
    })
    const mid = await t.api.get(`/api/v1/enrollments/${e.id}/progress`)
    expect(mid.body.data).toMatchObject({
      enrollment_id: e.id,
      overall_progress_percent: 50,
      time_spent_seconds: 150,
    })
    expect(mid.body.data.modules.map((m: { status: string }) => m.status)).toEqual([
      'completed',
      'in_progress',
      'not_started',
    ])
    await recordDownload(t.tenant, e.id, m3.id, '2026-03-02T09:00:00.000Z')
    const done = (await t.api.get(`/api/v1/enrollments/${e.id}`)).body.data
    expect(done).toMatchObject({
      status: 'completed',
      completed_at: '2026-03-02T09:00:00.000Z',
      progress_percent: 100,
      pass_fail: 'pass',
      score: 80,
    })
    expect(done.certificate_id).toMatch(/^[0-9a-f-]{36}$/)
    const events = (await listOutboxEvents(t.tenant)).map((x) => x.event)
    expect(events).toContain('enrollment.completed')
    expect(events).toContain('certificate.issued')
    const completions = await t.api.get('/api/v1/completions')
    expect(completions.body.data).toEqual([
      {
        id: e.id,
        user_id: u.id,
        course_id: c.id,
        status: 'completed',
        completed_at: '2026-03-02T09:00:00.000Z',
        source: 'native',
      },
    ])
    expect(completions.body.meta.total).toBe(1)
    const transcript = await t.api.get(`/api/v1/users/${u.id}/transcript`)
    expect(transcript.body.meta).toEqual({ total: 1 })
    expect(transcript.body.data.totals).toEqual({
      completed: 1,
      in_progress: 0,
      time_spent_seconds: 150,
      ceu_total: 1.5,
      ceu_label: 'CEU',
      certificates: 1,
    })
    expect(transcript.body.data.items[0]).toMatchObject({
      type: 'course',
      item_id: c.id,
      title: c.title,
      status: 'completed',
      expires_at: '2026-04-01T09:00:00.000Z',
      score_percent: 80,
      ceu_value: 1.5,
    })
    expect(transcript.body.data.items[0].certificate_number).toMatch(/^CERT-2026-/)
    const drop = await t.api.delete(`/api/v1/enrollments/${e.id}`)
    expect(drop.status).toBe(422)
  })
})
