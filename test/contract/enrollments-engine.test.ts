/**
 * The enrollment engine through its three doors: POST /enrollments, POST /courses/{id}/enrollments
 * and POST /enrollments/bulk. Course settings (seats, window, approval, prerequisites, session
 * selection) and learner activity have no API route: they are prepared through the services.
 */
import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { importCompletion, recordActivity } from '../../shared/services/enrollments/learner-service.ts'
import { listOutboxEvents, listOutboxNotifications } from '../../shared/store/outbox/outbox-store.ts'
import type { Reply } from '../helpers/http.ts'
import { newTenant, type TestTenant } from '../helpers/tenants.ts'
import { user, course } from '../helpers/learning.ts'

const DAY = 86_400_000
const inDays = (n: number) => new Date(Date.now() + n * DAY).toISOString()

async function users(t: TestTenant, n: number) {
  const out: { id: string; email: string }[] = []
  for (let i = 0; i < n; i += 20) {
    out.push(...(await Promise.all(Array.from({ length: Math.min(20, n - i) }, () => user(t)))))
  }
  return out
}

async function events(t: TestTenant, name: string) {
  return (await listOutboxEvents(t.tenant)).filter((e) => e.event === name)
}

type Enroll = (
  t: TestTenant,
  userId: string,
  courseId: string,
  extra?: Record<string, unknown>,
) => Promise<Reply>

/** The two single routes share one engine, so every guard is checked on both. */
const singleRoutes: readonly { route: string; enroll: Enroll }[] = [
  {
    route: 'POST /api/v1/enrollments',
    enroll: (t, userId, courseId, extra = {}) =>
      t.api.post('/api/v1/enrollments', { user_id: userId, course_id: courseId, ...extra }),
  },
  {
    route: 'POST /api/v1/courses/{id}/enrollments',
    enroll: (t, userId, courseId, extra = {}) =>
      t.api.post(`/api/v1/courses/${courseId}/enrollments`, { user_id: userId, ...extra }),
  },
]

function expect422(reply: Reply, message: RegExp) {
  expect(reply.status).toBe(422)
  expect(reply.body).toMatchObject({ data: null, meta: null, error: { code: 422 } })
  expect(reply.body.error.message).toMatch(message)
}

describe.each(singleRoutes)('Route: $route', ({ enroll }) => {
  it('enrolls into a published course: 201 active, enrollment.created and a confirmation notification', async () => {
    // Prepare
    const t = await newTenant()
    const u = await user(t)
    const c = await course(t)

    // Act
    const reply = await enroll(t, u.id, c.id, { due_date: '2027-01-01T00:00:00Z' })

    // Assess
    expect(reply.status).toBe(201)
    expect(reply.body.error).toBeNull()
    expect(reply.body.meta).toBeNull()
    const e = reply.body.data
    expect(e).toMatchObject({
      user_id: u.id,
      course_id: c.id,
      status: 'active',
      due_date: '2027-01-01T00:00:00.000Z',
      completed_at: null,
      source: 'native',
      progress_percent: 0,
      score: null,
      pass_fail: null,
      started_at: null,
      certificate_id: null,
    })
    expect(e.id).toMatch(/^[0-9a-f-]{36}$/)
    expect(Date.parse(e.created_at)).not.toBeNaN()
    expect(Date.parse(e.enrolled_at)).not.toBeNaN()
    expect((await events(t, 'enrollment.created')).map((x) => x.data)).toEqual([
      { enrollmentId: e.id, userId: u.id, courseId: c.id, status: 'active' },
    ])
    const notes = await listOutboxNotifications(t.tenant)
    expect(notes).toHaveLength(1)
    expect(notes[0]).toMatchObject({ template: 'enrollment_confirmation', userId: u.id })
    expect(notes[0]?.data).toMatchObject({ enrollmentId: e.id, courseId: c.id })
    expect((await t.api.get(`/api/v1/courses/${c.id}`)).body.data.enrollment_count).toBe(1)
    expect((await t.api.get(`/api/v1/enrollments/${e.id}`)).body.data).toEqual(e)
  })

  it('answers 400 naming the field for a missing or malformed user_id or due_date', async () => {
    // Prepare
    const t = await newTenant()
    const u = await user(t)
    const c = await course(t)

    // Act
    const missing = await enroll(t, undefined as unknown as string, c.id)
    const malformed = await enroll(t, 'x', c.id)
    const badDate = await enroll(t, u.id, c.id, { due_date: 'tomorrow' })

    // Assess
    expect(missing.status).toBe(400)
    expect(missing.body.error).toMatchObject({ code: 400 })
    expect(missing.body.error.message).toContain('user_id')
    expect(malformed.status).toBe(400)
    expect(malformed.body.error.message).toContain('user_id')
    expect(badDate.status).toBe(400)
    expect(badDate.body.error.message).toContain('due_date')
    expect(await events(t, 'enrollment.created')).toEqual([])
  })

  it('answers 404 for a user or a course missing in the tenant (or in another tenant), writing nothing', async () => {
    // Prepare
    const t = await newTenant()
    const other = await newTenant()
    const u = await user(t)
    const c = await course(t)
    const foreignUser = await user(other)
    const foreignCourse = await course(other)

    // Act
    const replies = [
      await enroll(t, randomUUID(), c.id),
      await enroll(t, u.id, randomUUID()),
      await enroll(t, foreignUser.id, c.id),
      await enroll(t, u.id, foreignCourse.id),
    ]

    // Assess
    expect(replies.map((r) => r.status)).toEqual([404, 404, 404, 404])
    expect(replies.map((r) => r.body.error.code)).toEqual([404, 404, 404, 404])
    expect(await events(t, 'enrollment.created')).toEqual([])
    expect(await listOutboxNotifications(t.tenant)).toEqual([])
  })

  it('answers 409 for a live enrollment: active, waitlisted, pending_approval or completed', async () => {
    // Prepare
    const t = await newTenant()
    const u = await user(t)
    const [active, waitlisted, pending, completed] = [
      await course(t),
      await course(t, { settings: { seatLimit: 0, waitlist: true } }),
      await course(t, { settings: { requiresApproval: true } }),
      await course(t),
    ]
    expect((await enroll(t, u.id, active.id)).body.data.status).toBe('active')
    expect((await enroll(t, u.id, waitlisted.id)).body.data.status).toBe('waitlisted')
    expect((await enroll(t, u.id, pending.id)).body.data.status).toBe('pending_approval')
    await importCompletion(t.tenant, {
      userId: u.id,
      courseId: completed.id,
      completedAt: '2025-01-01T00:00:00Z',
    })

    // Act
    const again = [
      await enroll(t, u.id, active.id),
      await enroll(t, u.id, waitlisted.id),
      await enroll(t, u.id, pending.id),
      await enroll(t, u.id, completed.id),
    ]

    // Assess
    expect(again.map((r) => r.status)).toEqual([409, 409, 409, 409])
    expect(again.map((r) => r.body.error.code)).toEqual([409, 409, 409, 409])
    expect(again[0]?.body.error.message).toMatch(/live enrollment/)
    expect(await events(t, 'enrollment.created')).toHaveLength(3)
    const list = await t.api.get(`/api/v1/enrollments?user_id=${u.id}`)
    expect(list.body.meta.total).toBe(4)
  })

  it('answers 422 for a draft or an archived course', async () => {
    // Prepare
    const t = await newTenant()
    const u = await user(t)
    const draft = await course(t, { publish: false })
    const archived = await course(t)
    expect((await t.api.delete(`/api/v1/courses/${archived.id}`)).status).toBe(204)

    // Act
    const onDraft = await enroll(t, u.id, draft.id)
    const onArchived = await enroll(t, u.id, archived.id)

    // Assess
    expect422(onDraft, /not published/)
    expect422(onArchived, /not published/)
    expect(await events(t, 'enrollment.created')).toEqual([])
  })

  it('answers 422 before the window opens and after it closes, and 201 inside it', async () => {
    // Prepare
    const t = await newTenant()
    const u = await user(t)
    const notYet = await course(t, {
      settings: { enrollmentOpensAt: inDays(2), enrollmentClosesAt: inDays(9) },
    })
    const over = await course(t, {
      settings: { enrollmentOpensAt: inDays(-9), enrollmentClosesAt: inDays(-1) },
    })
    const open = await course(t, {
      settings: { enrollmentOpensAt: inDays(-1), enrollmentClosesAt: inDays(1) },
    })

    // Act
    const before = await enroll(t, u.id, notYet.id)
    const after = await enroll(t, u.id, over.id)
    const inside = await enroll(t, u.id, open.id)

    // Assess
    expect422(before, /window/)
    expect422(after, /window/)
    expect(inside.status).toBe(201)
    expect(inside.body.data.status).toBe('active')
    expect((await events(t, 'enrollment.created')).map((e) => e.data.courseId)).toEqual([open.id])
  })

  it('answers 422 for incomplete prerequisites until the prerequisite course is completed, then 201', async () => {
    // Prepare
    const t = await newTenant()
    const u = await user(t)
    const basics = await course(t, { modules: [{ title: 'Basics', module_type: 'video' }] })
    const advanced = await course(t, { settings: { prerequisites: [basics.id] } })

    // Act
    const refused = await enroll(t, u.id, advanced.id)
    const basicsEnrollment = (await enroll(t, u.id, basics.id)).body.data
    const stillRefused = await enroll(t, u.id, advanced.id)
    await recordActivity(t.tenant, basicsEnrollment.id, {
      moduleId: basics.modules[0]?.id ?? '',
      kind: 'complete',
    })
    const accepted = await enroll(t, u.id, advanced.id)

    // Assess
    expect422(refused, /prerequisite/)
    expect422(stillRefused, /prerequisite/)
    expect((await t.api.get(`/api/v1/enrollments/${basicsEnrollment.id}`)).body.data.status).toBe('completed')
    expect(accepted.status).toBe(201)
    expect(accepted.body.data).toMatchObject({ course_id: advanced.id, status: 'active' })
  })

  it('answers 422 when an instructor-led series needs a session selected in the app', async () => {
    // Prepare
    const t = await newTenant()
    const u = await user(t)
    const series = await course(t, { settings: { requiresSessionSelection: true } })

    // Act
    const reply = await enroll(t, u.id, series.id)

    // Assess
    expect422(reply, /session/)
    expect(await events(t, 'enrollment.created')).toEqual([])
    expect((await t.api.get(`/api/v1/courses/${series.id}`)).body.data.enrollment_count).toBe(0)
  })

  it('answers 422 when the course is full without a waitlist; waitlists when the waitlist is on', async () => {
    // Prepare
    const t = await newTenant()
    const [a, b] = [await user(t), await user(t)]
    const closed = await course(t, { settings: { seatLimit: 1 } })
    const withList = await course(t, { settings: { seatLimit: 1, waitlist: true } })

    // Act
    const first = await enroll(t, a.id, closed.id)
    const full = await enroll(t, b.id, closed.id)
    const seated = await enroll(t, a.id, withList.id)
    const listed = await enroll(t, b.id, withList.id)

    // Assess
    expect(first.body.data.status).toBe('active')
    expect422(full, /full/)
    expect(seated.body.data.status).toBe('active')
    expect(listed.status).toBe(201)
    expect(listed.body.data.status).toBe('waitlisted')
    expect((await events(t, 'enrollment.created')).map((e) => e.data.status)).toEqual([
      'active',
      'active',
      'waitlisted',
    ])
    const notes = await listOutboxNotifications(t.tenant)
    expect(notes.filter((n) => n.userId === b.id)).toHaveLength(1)
  })

  it('creates pending_approval when the course requires approval, with its event and notification', async () => {
    // Prepare
    const t = await newTenant()
    const u = await user(t)
    const c = await course(t, { settings: { requiresApproval: true } })

    // Act
    const reply = await enroll(t, u.id, c.id)

    // Assess
    expect(reply.status).toBe(201)
    expect(reply.body.data.status).toBe('pending_approval')
    expect((await events(t, 'enrollment.created')).map((e) => e.data)).toEqual([
      { enrollmentId: reply.body.data.id, userId: u.id, courseId: c.id, status: 'pending_approval' },
    ])
    expect(await listOutboxNotifications(t.tenant)).toHaveLength(1)
  })

  it('reactivates a dropped enrollment: same id, active, with a clean slate and a new enrollment.created', async () => {
    // Prepare
    const t = await newTenant()
    const u = await user(t)
    const c = await course(t, {
      modules: [
        { title: 'One', module_type: 'video' },
        { title: 'Two', module_type: 'document' },
      ],
    })
    const first = (await enroll(t, u.id, c.id, { due_date: '2027-03-01T00:00:00Z' })).body.data
    await recordActivity(t.tenant, first.id, {
      moduleId: c.modules[0]?.id ?? '',
      kind: 'complete',
      score: 90,
      timeSpentSeconds: 300,
      at: '2026-05-01T10:00:00.000Z',
    })
    const worked = (await t.api.get(`/api/v1/enrollments/${first.id}`)).body.data
    expect(worked).toMatchObject({ progress_percent: 50, score: 90, started_at: '2026-05-01T10:00:00.000Z' })
    expect((await t.api.delete(`/api/v1/enrollments/${first.id}`)).status).toBe(204)

    // Act
    const again = await enroll(t, u.id, c.id)

    // Assess
    expect(again.status).toBe(201)
    expect(again.body.data).toMatchObject({
      id: first.id,
      status: 'active',
      due_date: null,
      completed_at: null,
      progress_percent: 0,
      score: null,
      pass_fail: null,
      started_at: null,
      certificate_id: null,
    })
    expect(Date.parse(again.body.data.enrolled_at)).toBeGreaterThanOrEqual(Date.parse(first.enrolled_at))
    const progress = await t.api.get(`/api/v1/enrollments/${first.id}/progress`)
    expect(progress.body.data).toEqual({
      enrollment_id: first.id,
      overall_progress_percent: 0,
      time_spent_seconds: 0,
      last_activity_at: null,
      modules: c.modules.map((m) => ({
        module_id: m.id,
        module_title: m.title,
        status: 'not_started',
        score: null,
        time_spent_seconds: 0,
        completed_at: null,
      })),
    })
    expect((await events(t, 'enrollment.created')).map((e) => e.data)).toEqual([
      { enrollmentId: first.id, userId: u.id, courseId: c.id, status: 'active' },
      { enrollmentId: first.id, userId: u.id, courseId: c.id, status: 'active' },
    ])
    expect(await listOutboxNotifications(t.tenant)).toHaveLength(2)
    const list = await t.api.get(`/api/v1/enrollments?user_id=${u.id}`)
    expect(list.body.data.map((e: { id: string }) => e.id)).toEqual([first.id])
    expect((await t.api.get('/api/v1/enrollments?status=active')).body.meta.total).toBe(1)
    expect((await t.api.get('/api/v1/enrollments?status=dropped')).body).toMatchObject({
      data: [],
      meta: { total: 0 },
    })
    expect((await t.api.get('/api/v1/enrollments')).body.meta.total).toBe(1)
    expect((await t.api.get(`/api/v1/courses/${c.id}`)).body.data.enrollment_count).toBe(1)
  })

  it('applies the same guards to a reactivation: a dropped learner cannot retake a seat that was taken', async () => {
    // Prepare
    const t = await newTenant()
    const [a, b] = [await user(t), await user(t)]
    const c = await course(t, { settings: { seatLimit: 1 } })
    const dropped = (await enroll(t, a.id, c.id)).body.data
    expect((await t.api.delete(`/api/v1/enrollments/${dropped.id}`)).status).toBe(204)
    expect((await enroll(t, b.id, c.id)).status).toBe(201)

    // Act
    const reply = await enroll(t, a.id, c.id)

    // Assess
    expect422(reply, /full/)
    expect((await t.api.get(`/api/v1/enrollments/${dropped.id}`)).body.data.status).toBe('dropped')
  })
})

describe('Route: POST /api/v1/courses/{id}/enrollments', () => {
  it('answers 404 for a path id that is not a UUID', async () => {
    // Prepare
    const t = await newTenant()
    const u = await user(t)

    // Act
    const reply = await t.api.post('/api/v1/courses/not-a-uuid/enrollments', { user_id: u.id })

    // Assess
    expect(reply.status).toBe(404)
  })

  it('takes the course from the path, not from the body', async () => {
    // Prepare
    const t = await newTenant()
    const u = await user(t)
    const [c, other] = [await course(t), await course(t)]

    // Act
    const reply = await t.api.post(`/api/v1/courses/${c.id}/enrollments`, {
      user_id: u.id,
      course_id: other.id,
    })

    // Assess
    expect(reply.status).toBe(201)
    expect(reply.body.data.course_id).toBe(c.id)
  })
})

describe('Enrollment engine: seat limits under concurrency', () => {
  it('activates exactly 4 of 12 parallel enrollments (through both routes) into 4 seats; the rest 422', async () => {
    // Prepare
    const t = await newTenant()
    const c = await course(t, { settings: { seatLimit: 4 } })
    const people = await users(t, 12)

    // Act
    const replies = await Promise.all(
      people.map((u, i) => singleRoutes[i % 2]?.enroll(t, u.id, c.id) as Promise<Reply>),
    )

    // Assess
    const ok = replies.filter((r) => r.status === 201)
    expect(ok).toHaveLength(4)
    expect(ok.every((r) => r.body.data.status === 'active')).toBe(true)
    const refused = replies.filter((r) => r.status === 422)
    expect(refused).toHaveLength(8)
    expect(refused.every((r) => /full/.test(r.body.error.message))).toBe(true)
    const active = await t.api.get(`/api/v1/courses/${c.id}/enrollments?status=active`)
    expect(active.body.meta.total).toBe(4)
    expect((await t.api.get(`/api/v1/courses/${c.id}`)).body.data.enrollment_count).toBe(4)
    expect(await events(t, 'enrollment.created')).toHaveLength(4)
    expect(await listOutboxNotifications(t.tenant)).toHaveLength(4)
  })

  it('activates exactly 4 of 12 parallel enrollments into 4 seats and waitlists the other 8', async () => {
    // Prepare
    const t = await newTenant()
    const c = await course(t, { settings: { seatLimit: 4, waitlist: true } })
    const people = await users(t, 12)

    // Act
    const replies = await Promise.all(
      people.map((u, i) => singleRoutes[i % 2]?.enroll(t, u.id, c.id) as Promise<Reply>),
    )

    // Assess
    expect(replies.map((r) => r.status)).toEqual(Array(12).fill(201))
    const statuses = replies.map((r) => r.body.data.status as string)
    expect(statuses.filter((s) => s === 'active')).toHaveLength(4)
    expect(statuses.filter((s) => s === 'waitlisted')).toHaveLength(8)
    const list = async (status: string) =>
      (await t.api.get(`/api/v1/courses/${c.id}/enrollments?status=${status}`)).body.meta.total
    expect(await list('active')).toBe(4)
    expect(await list('waitlisted')).toBe(8)
    const created = await events(t, 'enrollment.created')
    expect(created.filter((e) => e.data.status === 'active')).toHaveLength(4)
    expect(created.filter((e) => e.data.status === 'waitlisted')).toHaveLength(8)
    expect(await listOutboxNotifications(t.tenant)).toHaveLength(12)
  })

  it('lets exactly one of 6 parallel enrollments of the same user succeed; the others 409', async () => {
    // Prepare
    const t = await newTenant()
    const u = await user(t)
    const c = await course(t)

    // Act
    const replies = await Promise.all(
      Array.from({ length: 6 }, (_, i) => singleRoutes[i % 2]?.enroll(t, u.id, c.id) as Promise<Reply>),
    )

    // Assess
    expect(replies.filter((r) => r.status === 201)).toHaveLength(1)
    expect(replies.filter((r) => r.status === 409)).toHaveLength(5)
    expect(await events(t, 'enrollment.created')).toHaveLength(1)
    expect((await t.api.get(`/api/v1/courses/${c.id}`)).body.data.enrollment_count).toBe(1)
  })

  it('frees the seat when an active seated enrollment is dropped: a new user can then take it', async () => {
    // Prepare
    const t = await newTenant()
    const [a, b, c3] = [await user(t), await user(t), await user(t)]
    const c = await course(t, { settings: { seatLimit: 1 } })
    const seated = (await t.api.post('/api/v1/enrollments', { user_id: a.id, course_id: c.id })).body.data
    expect422(await t.api.post('/api/v1/enrollments', { user_id: b.id, course_id: c.id }), /full/)

    // Act
    const drop = await t.api.delete(`/api/v1/enrollments/${seated.id}`)
    const taken = await t.api.post(`/api/v1/courses/${c.id}/enrollments`, { user_id: b.id })
    const third = await t.api.post('/api/v1/enrollments', { user_id: c3.id, course_id: c.id })

    // Assess
    expect(drop.status).toBe(204)
    expect(taken.status).toBe(201)
    expect(taken.body.data.status).toBe('active')
    expect422(third, /full/)
    expect((await t.api.get(`/api/v1/courses/${c.id}`)).body.data.enrollment_count).toBe(1)
  })
})

describe('Attack: 20 parallel re-enrollments after a drop', () => {
  /** Both single routes, alternately, all at once: the attack as it was replayed. */
  const reEnrollAtOnce = (t: TestTenant, userId: string, courseId: string) =>
    Promise.all(
      Array.from(
        { length: 20 },
        (_, i) => singleRoutes[i % 2]?.enroll(t, userId, courseId) as Promise<Reply>,
      ),
    )

  it('reactivates once per drop, round after round: one 201 and 19 × 409, one enrollment.created and one confirmation', async () => {
    // Prepare
    const t = await newTenant()
    const u = await user(t)
    const c = await course(t)
    const first = await t.api.post('/api/v1/enrollments', { user_id: u.id, course_id: c.id })
    expect(first.status).toBe(201)

    for (let round = 1; round <= 4; round++) {
      expect((await t.api.delete(`/api/v1/enrollments/${first.body.data.id}`)).status).toBe(204)

      // Act
      const replies = await reEnrollAtOnce(t, u.id, c.id)

      // Assess
      expect(replies.map((r) => r.status).sort()).toEqual([201, ...Array<number>(19).fill(409)])
      expect(replies.find((r) => r.status === 201)?.body.data).toMatchObject({
        id: first.body.data.id,
        status: 'active',
      })
      expect(await events(t, 'enrollment.created')).toHaveLength(round + 1)
      expect(await listOutboxNotifications(t.tenant)).toHaveLength(round + 1)
      expect((await t.api.get(`/api/v1/courses/${c.id}`)).body.data.enrollment_count).toBe(1)
    }
    expect((await t.api.get(`/api/v1/enrollments/${first.body.data.id}`)).body.data.status).toBe('active')
    expect((await t.api.get('/api/v1/enrollments?status=active')).body.meta.total).toBe(1)
    expect((await t.api.get('/api/v1/enrollments?status=dropped')).body.meta.total).toBe(0)
  })

  it('keeps a 5-seat course’s seats true: after the rounds a new learner takes the fifth seat, the next is refused', async () => {
    // Prepare
    const t = await newTenant()
    const [u, newcomer, late, ...others] = await users(t, 6)
    const c = await course(t, { settings: { seatLimit: 5 } })
    const first = await t.api.post('/api/v1/enrollments', { user_id: u?.id, course_id: c.id })
    expect(first.status).toBe(201)
    for (const o of others) expect((await singleRoutes[0]?.enroll(t, o.id, c.id))?.status).toBe(201)

    for (let round = 1; round <= 4; round++) {
      expect((await t.api.delete(`/api/v1/enrollments/${first.body.data.id}`)).status).toBe(204)

      // Act
      const replies = await reEnrollAtOnce(t, u?.id ?? '', c.id)

      // Assess
      expect(replies.map((r) => r.status).sort()).toEqual([201, ...Array<number>(19).fill(409)])
    }
    const fifth = await t.api.post('/api/v1/enrollments', { user_id: newcomer?.id, course_id: c.id })
    expect(fifth.status).toBe(201)
    expect(fifth.body.data.status).toBe('active')
    expect422(await t.api.post('/api/v1/enrollments', { user_id: late?.id, course_id: c.id }), /full/)
    const active = await t.api.get(`/api/v1/courses/${c.id}/enrollments?status=active`)
    expect(active.body.meta.total).toBe(5)
    expect((await t.api.get(`/api/v1/courses/${c.id}`)).body.data.enrollment_count).toBe(5)
  })
})

describe('Route: POST /api/v1/enrollments/bulk', () => {
  it('runs each row on its own and answers 207 with every refusal code, zero-based indexes and messages', async () => {
    // Prepare
    const t = await newTenant()
    const [a, b, c2, inactive] = [await user(t), await user(t), await user(t), await user(t)]
    expect((await t.api.delete(`/api/v1/users/${inactive.id}`)).status).toBe(204)
    const open = await course(t)
    const draft = await course(t, { publish: false })
    const closed = await course(t, { settings: { enrollmentClosesAt: inDays(-1) } })
    const advanced = await course(t, { settings: { prerequisites: [open.id] } })
    const oneSeat = await course(t, { settings: { seatLimit: 1 } })
    const series = await course(t, { settings: { requiresSessionSelection: true } })
    expect((await t.api.post('/api/v1/enrollments', { user_id: b.id, course_id: open.id })).status).toBe(201)

    // Act
    const reply = await t.api.post('/api/v1/enrollments/bulk', {
      enrollments: [
        { user_id: a.id, course_id: open.id, due_date: '2027-02-01T00:00:00Z' }, // 0 ok
        { user_id: a.id, course_id: randomUUID() }, // 1 course_not_found
        { user_id: randomUUID(), course_id: open.id }, // 2 user_not_found
        { user_id: a.id, course_id: open.id }, // 3 duplicate within the request
        { user_id: b.id, course_id: open.id }, // 4 duplicate of an existing enrollment
        { user_id: a.id, course_id: draft.id }, // 5 not_published
        { user_id: a.id, course_id: closed.id }, // 6 window_closed
        { user_id: c2.id, course_id: advanced.id }, // 7 prerequisites_incomplete
        { user_id: a.id, course_id: oneSeat.id }, // 8 ok, takes the seat
        { user_id: b.id, course_id: oneSeat.id }, // 9 course_full
        { user_id: 'nope', course_id: open.id }, // 10 invalid_row
        { user_id: c2.id }, // 11 invalid_row (course_id missing)
        { user_id: a.id, course_id: series.id }, // 12 session_selection_required
        { user_id: inactive.id, course_id: open.id }, // 13 user_inactive
        { user_id: c2.id, course_id: open.id }, // 14 ok
        { user_id: b.id, course_id: closed.id, due_date: 'soon' }, // 15 invalid_row (due_date)
        'not a row', // 16 invalid_row
      ],
    })

    // Assess
    expect(reply.status).toBe(207)
    expect(reply.body.error).toBeNull()
    expect(reply.body.data.created).toBe(3)
    expect(reply.body.data.created + reply.body.data.skipped).toBe(17)
    const errors = reply.body.data.errors as { index: number; code: string; message: string }[]
    expect(errors.map((e) => [e.index, e.code])).toEqual([
      [1, 'course_not_found'],
      [2, 'user_not_found'],
      [3, 'duplicate'],
      [4, 'duplicate'],
      [5, 'not_published'],
      [6, 'window_closed'],
      [7, 'prerequisites_incomplete'],
      [9, 'course_full'],
      [10, 'invalid_row'],
      [11, 'invalid_row'],
      [12, 'session_selection_required'],
      [13, 'user_inactive'],
      [15, 'invalid_row'],
      [16, 'invalid_row'],
    ])
    expect(errors.every((e) => typeof e.message === 'string' && e.message.length > 0)).toBe(true)
    expect(errors.find((e) => e.index === 10)?.message).toContain('user_id')
    expect(errors.find((e) => e.index === 11)?.message).toContain('course_id')
    expect(errors.find((e) => e.index === 15)?.message).toContain('due_date')
    const created = await events(t, 'enrollment.created')
    expect(created.map((e) => [e.data.userId, e.data.courseId]).sort()).toEqual(
      [
        [b.id, open.id],
        [a.id, open.id],
        [a.id, oneSeat.id],
        [c2.id, open.id],
      ].sort(),
    )
    expect(await listOutboxNotifications(t.tenant)).toHaveLength(4)
    const aOpen = await t.api.get(`/api/v1/enrollments?user_id=${a.id}&course_id=${open.id}`)
    expect(aOpen.body.data).toHaveLength(1)
    expect(aOpen.body.data[0]).toMatchObject({ status: 'active', due_date: '2027-02-01T00:00:00.000Z' })
  })

  it('answers 201 when every row succeeds, with an event and a notification per enrollment', async () => {
    // Prepare
    const t = await newTenant()
    const people = await users(t, 3)
    const [c, approval] = [await course(t), await course(t, { settings: { requiresApproval: true } })]

    // Act
    const reply = await t.api.post('/api/v1/enrollments/bulk', {
      enrollments: [
        ...people.map((u) => ({ user_id: u.id, course_id: c.id })),
        { user_id: people[0]?.id, course_id: approval.id },
      ],
    })

    // Assess
    expect(reply.status).toBe(201)
    expect(reply.body.error).toBeNull()
    expect(reply.body.data).toMatchObject({ created: 4, skipped: 0, errors: [] })
    const created = await events(t, 'enrollment.created')
    expect(created.map((e) => e.data.status).sort()).toEqual([
      'active',
      'active',
      'active',
      'pending_approval',
    ])
    const notes = await listOutboxNotifications(t.tenant)
    expect(notes.map((n) => n.userId).sort()).toEqual(
      [...people.map((u) => u.id), people[0]?.id as string].sort(),
    )
  })

  it('answers 207 with created 0 when every row fails, the top-level error still null', async () => {
    // Prepare
    const t = await newTenant()
    const u = await user(t)
    const draft = await course(t, { publish: false })

    // Act
    const reply = await t.api.post('/api/v1/enrollments/bulk', {
      enrollments: [
        { user_id: u.id, course_id: draft.id },
        { user_id: u.id, course_id: randomUUID() },
      ],
    })

    // Assess
    expect(reply.status).toBe(207)
    expect(reply.body.error).toBeNull()
    expect(reply.body.data).toMatchObject({ created: 0, skipped: 2 })
    expect(reply.body.data.errors.map((e: { index: number; code: string }) => [e.index, e.code])).toEqual([
      [0, 'not_published'],
      [1, 'course_not_found'],
    ])
  })

  it('seats rows in order: into 4 seats with a waitlist, 6 rows give 4 active and 2 waitlisted, all created', async () => {
    // Prepare
    const t = await newTenant()
    const people = await users(t, 6)
    const c = await course(t, { settings: { seatLimit: 4, waitlist: true } })

    // Act
    const reply = await t.api.post('/api/v1/enrollments/bulk', {
      enrollments: people.map((u) => ({ user_id: u.id, course_id: c.id })),
    })

    // Assess
    expect(reply.status).toBe(201)
    expect(reply.body.data).toMatchObject({ created: 6, skipped: 0, errors: [] })
    const status = async (s: string) =>
      (await t.api.get(`/api/v1/courses/${c.id}/enrollments?status=${s}`)).body.data
        .map((e: { user_id: string }) => e.user_id)
        .sort()
    expect(await status('active')).toEqual(
      people
        .slice(0, 4)
        .map((u) => u.id)
        .sort(),
    )
    expect(await status('waitlisted')).toEqual(
      people
        .slice(4)
        .map((u) => u.id)
        .sort(),
    )
  })

  it('never activates more than the seats across parallel bulk requests: 3 × 4 rows into 4 seats', async () => {
    // Prepare
    const t = await newTenant()
    const people = await users(t, 12)
    const c = await course(t, { settings: { seatLimit: 4 } })

    // Act
    const replies = await Promise.all(
      [0, 1, 2].map((k) =>
        t.api.post('/api/v1/enrollments/bulk', {
          enrollments: people.slice(k * 4, k * 4 + 4).map((u) => ({ user_id: u.id, course_id: c.id })),
        }),
      ),
    )

    // Assess
    expect(replies.reduce((n, r) => n + (r.body.data.created as number), 0)).toBe(4)
    const codes = replies.flatMap((r) => r.body.data.errors.map((e: { code: string }) => e.code))
    expect(codes).toEqual(Array(8).fill('course_full'))
    expect((await t.api.get(`/api/v1/courses/${c.id}/enrollments?status=active`)).body.meta.total).toBe(4)
    expect((await t.api.get(`/api/v1/courses/${c.id}`)).body.data.enrollment_count).toBe(4)
  })

  it('answers 400 for a missing, non-array, empty or over-500 list, and writes nothing', async () => {
    // Prepare
    const t = await newTenant()
    const u = await user(t)
    const c = await course(t)
    const row = { user_id: u.id, course_id: c.id }

    // Act
    const replies = [
      await t.api.post('/api/v1/enrollments/bulk', {}),
      await t.api.post('/api/v1/enrollments/bulk', { enrollments: 'all' }),
      await t.api.post('/api/v1/enrollments/bulk', { enrollments: [] }),
      await t.api.post('/api/v1/enrollments/bulk', { enrollments: Array(501).fill(row) }),
    ]

    // Assess
    expect(replies.map((r) => r.status)).toEqual([400, 400, 400, 400])
    for (const r of replies) {
      expect(r.body).toMatchObject({ data: null, meta: null, error: { code: 400 } })
      expect(r.body.error.message).toContain('enrollments')
    }
    expect(await events(t, 'enrollment.created')).toEqual([])
  })

  it('accepts 500 rows: 201 with created 500 and the courses’ enrollment_count', async () => {
    // Prepare
    const t = await newTenant()
    const people = await users(t, 100)
    const courses = await Promise.all(Array.from({ length: 5 }, () => course(t)))
    const rows = courses.flatMap((c) => people.map((u) => ({ user_id: u.id, course_id: c.id })))
    expect(rows).toHaveLength(500)

    // Act
    const reply = await t.api.post('/api/v1/enrollments/bulk', { enrollments: rows })

    // Assess
    expect(reply.status).toBe(201)
    expect(reply.body.error).toBeNull()
    expect(reply.body.data).toMatchObject({ created: 500, skipped: 0, errors: [] })
    for (const c of courses) {
      expect((await t.api.get(`/api/v1/courses/${c.id}`)).body.data.enrollment_count).toBe(100)
    }
    expect((await t.api.get('/api/v1/enrollments?per_page=1')).body.meta.total).toBe(500)
    expect(await events(t, 'enrollment.created')).toHaveLength(500)
  }, 120_000)
})
