/**
 * The enrollment routes other than creation: list (filters, sorts, paging), get, PATCH due date,
 * DELETE (unenroll), progress, and the course-scoped listing. Learner activity, imports and the
 * learner app's enrollments have no API route: they are prepared through the services, and so are
 * enrollments whose order a test asserts, made at the instants it names.
 */
import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { createEnrollment } from '../../shared/services/enrollments/enrollments-service.ts'
import { createGroup } from '../../shared/services/groups/groups-service.ts'
import { importCompletion, recordActivity } from '../../shared/services/enrollments/learner-service.ts'
import { listOutboxEvents } from '../../shared/store/outbox/outbox-store.ts'
import { newTenant, type TestTenant } from '../helpers/tenants.ts'
import { minute } from '../helpers/builders.ts'
import { course, enroll, enrollAt, user, type EnrollmentView } from '../helpers/learning.ts'

async function imported(t: TestTenant, userId: string, courseId: string, completedAt: string) {
  const e = await importCompletion(t.tenant, { userId, courseId, completedAt })
  return (await t.api.get(`/api/v1/enrollments/${e.id}`)).body.data as EnrollmentView
}

async function events(t: TestTenant, name: string) {
  return (await listOutboxEvents(t.tenant)).filter((e) => e.event === name)
}

const ids = (reply: { body: { data: { id: string }[] } }) => reply.body.data.map((e) => e.id)

describe('Route: GET /api/v1/enrollments', () => {
  it('lists newest enrollment first with the enrollment resource and meta', async () => {
    // Prepare
    const t = await newTenant()
    const u = await user(t)
    const [c1, c2, c3] = [await course(t), await course(t), await course(t)]
    const e1 = await enrollAt(t, minute(0), { user_id: u.id, course_id: c1.id })
    const e2 = await enrollAt(t, minute(1), {
      user_id: u.id,
      course_id: c2.id,
      due_date: '2027-01-01T00:00:00Z',
    })
    const e3 = await enrollAt(t, minute(2), { user_id: u.id, course_id: c3.id })

    // Act
    const reply = await t.api.get('/api/v1/enrollments')

    // Assess
    expect(reply.status).toBe(200)
    expect(reply.body.error).toBeNull()
    expect(reply.body.meta).toEqual({ page: 1, per_page: 50, total: 3 })
    expect(ids(reply)).toEqual([e3.id, e2.id, e1.id])
    expect(reply.body.data[1]).toEqual((await t.api.get(`/api/v1/enrollments/${e2.id}`)).body.data)
  })

  it('filters by user_id, course_id and status (the six statuses), with matching totals', async () => {
    // Prepare
    const t = await newTenant()
    const [a, b] = [await user(t), await user(t)]
    const [c1, c2] = [await course(t), await course(t)]
    const waitlistOnly = await course(t, { settings: { seatLimit: 0, waitlist: true } })
    const approval = await course(t, { settings: { requiresApproval: true } })
    const old = await course(t)
    const a1 = await enroll(t, a.id, c1.id)
    const a2 = await enroll(t, a.id, c2.id)
    const b1 = await enroll(t, b.id, c1.id)
    const bw = await enroll(t, b.id, waitlistOnly.id)
    const bp = await enroll(t, b.id, approval.id)
    const ac = await imported(t, a.id, old.id, '2024-04-04T00:00:00.000Z')
    expect((await t.api.delete(`/api/v1/enrollments/${b1.id}`)).status).toBe(204)
    const list = async (q: string) => {
      const r = await t.api.get(`/api/v1/enrollments?${q}`)
      expect(r.status).toBe(200)
      expect(r.body.meta.total).toBe(r.body.data.length)
      return ids(r).sort()
    }

    // Act
    const byUser = await list(`user_id=${a.id}`)
    const byCourse = await list(`course_id=${c1.id}`)
    const both = await list(`user_id=${a.id}&course_id=${c1.id}`)
    const statuses = {
      active: await list('status=active'),
      dropped: await list('status=dropped'),
      waitlisted: await list('status=waitlisted'),
      pending_approval: await list('status=pending_approval'),
      completed: await list('status=completed'),
      expired: await list('status=expired'),
    }
    const courseAndStatus = await list(`course_id=${c1.id}&status=active`)
    const userAndStatus = await list(`user_id=${b.id}&status=dropped`)
    const unknownUser = await list(`user_id=${randomUUID()}`)

    // Assess
    expect(byUser).toEqual([a1.id, a2.id, ac.id].sort())
    expect(byCourse).toEqual([a1.id, b1.id].sort())
    expect(both).toEqual([a1.id])
    expect(statuses).toEqual({
      active: [a1.id, a2.id].sort(),
      dropped: [b1.id],
      waitlisted: [bw.id],
      pending_approval: [bp.id],
      completed: [ac.id],
      expired: [],
    })
    expect(courseAndStatus).toEqual([a1.id])
    expect(userAndStatus).toEqual([b1.id])
    expect(unknownUser).toEqual([])
  })

  it('filters by group_id: the enrollments of the group’s members; an unknown group lists nothing', async () => {
    // Prepare
    const t = await newTenant()
    const [a, b, c] = [await user(t), await user(t), await user(t)]
    const [k1, k2] = [await course(t), await course(t)]
    const group = (await t.api.post('/api/v1/groups', { name: 'Night shift' })).body.data
    expect((await t.api.post(`/api/v1/groups/${group.id}/members`, { user_ids: [a.id, b.id] })).status).toBe(
      200,
    )
    const empty = (await t.api.post('/api/v1/groups', { name: 'Nobody' })).body.data
    const a1 = await enrollAt(t, minute(0), { user_id: a.id, course_id: k1.id })
    const a2 = await enrollAt(t, minute(1), { user_id: a.id, course_id: k2.id })
    const b1 = await enrollAt(t, minute(2), { user_id: b.id, course_id: k1.id })
    await enrollAt(t, minute(3), { user_id: c.id, course_id: k1.id })

    // Act
    const byGroup = await t.api.get(`/api/v1/enrollments?group_id=${group.id}`)
    const byGroupAndCourse = await t.api.get(`/api/v1/enrollments?group_id=${group.id}&course_id=${k1.id}`)
    const byEmptyGroup = await t.api.get(`/api/v1/enrollments?group_id=${empty.id}`)
    const byUnknownGroup = await t.api.get(`/api/v1/enrollments?group_id=${randomUUID()}`)

    // Assess
    expect(ids(byGroup)).toEqual([b1.id, a2.id, a1.id])
    expect(byGroup.body.meta.total).toBe(3)
    expect(ids(byGroupAndCourse)).toEqual([b1.id, a1.id])
    expect(byGroupAndCourse.body.meta.total).toBe(2)
    expect(byEmptyGroup.body).toMatchObject({ data: [], meta: { total: 0 } })
    expect(byUnknownGroup.body).toMatchObject({ data: [], meta: { total: 0 } })
  })

  it('filters by group_id for a dynamic group: the enrollments of the users its rule matches', async () => {
    // Prepare
    const t = await newTenant()
    const [contractor, employee] = [await user(t, { user_type: 'contractor' }), await user(t)]
    const k = await course(t)
    const dynamic = await createGroup(
      t.tenant,
      { name: 'Contractors', description: null },
      { attribute: 'user_type', equals: 'contractor' },
    )
    const members = await t.api.get(`/api/v1/groups/${dynamic.id}/members`)
    expect(members.body.data.map((m: { id: string }) => m.id)).toEqual([contractor.id])
    const mine = await enroll(t, contractor.id, k.id)
    await enroll(t, employee.id, k.id)

    // Act
    const reply = await t.api.get(`/api/v1/enrollments?group_id=${dynamic.id}`)

    // Assess
    expect(reply.status).toBe(200)
    expect(ids(reply)).toEqual([mine.id])
    expect(reply.body.meta.total).toBe(1)
  })

  it('filters by due_before and due_after (strict, in UTC or with an offset), leaving out enrollments with no due date', async () => {
    // Prepare
    const t = await newTenant()
    const u = await user(t)
    const other = await user(t)
    const cs = await Promise.all(Array.from({ length: 4 }, () => course(t)))
    const jan = await enroll(t, u.id, cs[0]?.id ?? '', { due_date: '2027-01-01T00:00:00Z' })
    const mar = await enroll(t, u.id, cs[1]?.id ?? '', { due_date: '2027-03-01T00:00:00Z' })
    await enroll(t, u.id, cs[2]?.id ?? '')
    const old = await enroll(t, other.id, cs[3]?.id ?? '', { due_date: '2026-06-30T00:00:00Z' })
    const q = async (query: string) => {
      const r = await t.api.get(`/api/v1/enrollments?${query}`)
      expect(r.status).toBe(200)
      expect(r.body.meta.total).toBe(r.body.data.length)
      return ids(r).sort()
    }

    // Act
    const before = await q('due_before=2027-02-01T00:00:00Z')
    const beforeOffset = await q(`due_before=${encodeURIComponent('2027-01-01T01:00:00+01:00')}`)
    const after = await q('due_after=2027-01-01T00:00:00Z')
    const between = await q('due_after=2026-12-31T00:00:00Z&due_before=2027-02-01T00:00:00Z')
    const userBefore = await q(`user_id=${u.id}&due_before=2027-02-01T00:00:00Z`)
    const userAfter = await q(`user_id=${u.id}&due_after=2026-01-01T00:00:00Z`)

    // Assess
    expect(before).toEqual([jan.id, old.id].sort())
    expect(beforeOffset).toEqual([old.id])
    expect(after).toEqual([mar.id])
    expect(between).toEqual([jan.id])
    expect(userBefore).toEqual([jan.id])
    expect(userAfter).toEqual([jan.id, mar.id].sort())
  })

  it('filters by created_after (strictly after), tenant-wide and for one course', async () => {
    // Prepare
    const t = await newTenant()
    const [a, b, c] = [await user(t), await user(t), await user(t)]
    const k = await course(t)
    const first = await enrollAt(t, minute(0), { user_id: a.id, course_id: k.id })
    const second = await enrollAt(t, minute(1), { user_id: b.id, course_id: k.id })
    const third = await enrollAt(t, minute(2), { user_id: c.id, course_id: k.id })

    // Act
    const tenantWide = await t.api.get(`/api/v1/enrollments?created_after=${second.created_at}`)
    const forCourse = await t.api.get(
      `/api/v1/enrollments?course_id=${k.id}&created_after=${first.created_at}`,
    )
    const beforeAll = await t.api.get('/api/v1/enrollments?created_after=2020-01-01T00:00:00Z')

    // Assess
    expect(ids(tenantWide)).toEqual([third.id])
    expect(tenantWide.body.meta.total).toBe(1)
    expect(ids(forCourse)).toEqual([third.id, second.id])
    expect(forCourse.body.meta.total).toBe(2)
    expect(beforeAll.body.meta.total).toBe(3)
  })

  it('sorts by enrolled_at, due_date and completed_at in both orders, missing dates last ascending', async () => {
    // Prepare
    const t = await newTenant()
    const u = await user(t)
    const cs = await Promise.all(Array.from({ length: 5 }, () => course(t)))
    const i1 = await imported(t, u.id, cs[0]?.id ?? '', '2020-05-05T00:00:00.000Z')
    const i2 = await imported(t, u.id, cs[1]?.id ?? '', '2021-07-07T00:00:00.000Z')
    expect(
      (await t.api.patch(`/api/v1/enrollments/${i2.id}`, { due_date: '2021-06-30T00:00:00Z' })).status,
    ).toBe(200)
    const n1 = await enrollAt(t, minute(0), {
      user_id: u.id,
      course_id: cs[2]?.id ?? '',
      due_date: '2027-03-01T00:00:00Z',
    })
    const n2 = await enrollAt(t, minute(1), { user_id: u.id, course_id: cs[3]?.id ?? '' })
    const n3 = await enrollAt(t, minute(2), {
      user_id: u.id,
      course_id: cs[4]?.id ?? '',
      due_date: '2027-01-01T00:00:00Z',
    })
    const sorted = async (query: string) => {
      const [tenantWide, forUser] = await Promise.all([
        t.api.get(`/api/v1/enrollments?${query}`),
        t.api.get(`/api/v1/enrollments?user_id=${u.id}&${query}`),
      ])
      expect(tenantWide.status).toBe(200)
      expect(ids(forUser)).toEqual(ids(tenantWide))
      return ids(tenantWide)
    }

    // Act
    const enrolledAsc = await sorted('sort_by=enrolled_at&sort_order=asc')
    const enrolledDesc = await sorted('sort_by=enrolled_at&sort_order=desc')
    const dueAsc = await sorted('sort_by=due_date&sort_order=asc')
    const dueDesc = await sorted('sort_by=due_date&sort_order=desc')
    const completedAsc = await sorted('sort_by=completed_at&sort_order=asc')
    const completedDesc = await sorted('sort_by=completed_at&sort_order=desc')
    const byDefault = await sorted('sort_by=enrolled_at')

    // Assess
    expect(enrolledAsc).toEqual([i1.id, i2.id, n1.id, n2.id, n3.id])
    expect(enrolledDesc).toEqual([n3.id, n2.id, n1.id, i2.id, i1.id])
    expect(byDefault).toEqual(enrolledDesc)
    expect(dueAsc.slice(0, 3)).toEqual([i2.id, n3.id, n1.id])
    expect(dueAsc.slice(3).sort()).toEqual([i1.id, n2.id].sort())
    expect(dueDesc).toEqual([...dueAsc].reverse())
    expect(completedAsc.slice(0, 2)).toEqual([i1.id, i2.id])
    expect(completedAsc.slice(2).sort()).toEqual([n1.id, n2.id, n3.id].sort())
    expect(completedDesc).toEqual([...completedAsc].reverse())
  })

  it('pages with page and per_page, clamps them, ignores unknown parameters and returns [] past the end', async () => {
    // Prepare
    const t = await newTenant()
    const k = await course(t)
    const made: EnrollmentView[] = []
    for (let i = 0; i < 5; i++)
      made.push(await enrollAt(t, minute(i), { user_id: (await user(t)).id, course_id: k.id }))
    const newestFirst = made.map((e) => e.id).reverse()

    // Act
    const p1 = await t.api.get('/api/v1/enrollments?per_page=2')
    const p3 = await t.api.get('/api/v1/enrollments?per_page=2&page=3')
    const past = await t.api.get('/api/v1/enrollments?per_page=2&page=4')
    const clamped = await t.api.get('/api/v1/enrollments?page=0&per_page=500&cursor=abc&fields=id&colour=red')
    const forCourse = await t.api.get(`/api/v1/enrollments?course_id=${k.id}&per_page=2&page=2`)

    // Assess
    expect(ids(p1)).toEqual(newestFirst.slice(0, 2))
    expect(p1.body.meta).toEqual({ page: 1, per_page: 2, total: 5 })
    expect(ids(p3)).toEqual(newestFirst.slice(4))
    expect(p3.body.meta).toEqual({ page: 3, per_page: 2, total: 5 })
    expect(past.status).toBe(200)
    expect(past.body).toMatchObject({ data: [], meta: { page: 4, per_page: 2, total: 5 } })
    expect(clamped.body.meta).toEqual({ page: 1, per_page: 200, total: 5 })
    expect(ids(clamped)).toEqual(newestFirst)
    expect(ids(forCourse)).toEqual(newestFirst.slice(2, 4))
    expect(forCourse.body.meta).toEqual({ page: 2, per_page: 2, total: 5 })
  })

  it('answers 400 naming the parameter for an invalid sort, status, id or timestamp', async () => {
    // Prepare
    const t = await newTenant()
    const cases: [string, string][] = [
      ['sort_by=created_at', 'sort_by'],
      ['sort_by=title', 'sort_by'],
      ['sort_order=up', 'sort_order'],
      ['status=finished', 'status'],
      ['user_id=42', 'user_id'],
      ['course_id=abc', 'course_id'],
      ['group_id=abc', 'group_id'],
      ['due_before=tomorrow', 'due_before'],
      ['due_after=2027-01-01', 'due_after'],
      ['created_after=2027-01-01T00:00:00', 'created_after'],
    ]

    // Act
    const replies = await Promise.all(cases.map(([q]) => t.api.get(`/api/v1/enrollments?${q}`)))

    // Assess
    replies.forEach((r, i) => {
      expect(r.status, cases[i]?.[0]).toBe(400)
      expect(r.body).toMatchObject({ data: null, meta: null, error: { code: 400 } })
      expect(r.body.error.message).toContain(cases[i]?.[1])
    })
  })

  it('needs the read scope: a read key lists, a write-only key gets 403', async () => {
    // Prepare
    const t = await newTenant()
    const reader = t.api.withKey(await t.key(['read']))
    const writer = t.api.withKey(await t.key(['write']))

    // Act
    const read = await reader.get('/api/v1/enrollments')
    const refused = await writer.get('/api/v1/enrollments')

    // Assess
    expect(read.status).toBe(200)
    expect(refused.status).toBe(403)
    expect(refused.body.error.message).toContain('read')
  })
})

describe('Route: GET /api/v1/enrollments/{id}', () => {
  it('returns the enrollment resource with every field', async () => {
    // Prepare
    const t = await newTenant()
    const u = await user(t)
    const k = await course(t)
    const e = await enroll(t, u.id, k.id, { due_date: '2027-05-05T00:00:00Z' })

    // Act
    const reply = await t.api.get(`/api/v1/enrollments/${e.id}`)

    // Assess
    expect(reply.status).toBe(200)
    expect(reply.body.meta).toBeNull()
    expect(Object.keys(reply.body.data).sort()).toEqual(
      [
        'id',
        'user_id',
        'course_id',
        'status',
        'due_date',
        'completed_at',
        'source',
        'created_at',
        'progress_percent',
        'score',
        'pass_fail',
        'enrolled_at',
        'started_at',
        'certificate_id',
        'updated_at',
        'access_expires_at',
      ].sort(),
    )
    expect(reply.body.data).toMatchObject({
      id: e.id,
      user_id: u.id,
      course_id: k.id,
      status: 'active',
      due_date: '2027-05-05T00:00:00.000Z',
      source: 'native',
    })
  })

  it('answers 404 for an unknown id, a non-UUID id and another tenant’s enrollment', async () => {
    // Prepare
    const t = await newTenant()
    const other = await newTenant()
    const foreign = await enroll(other, (await user(other)).id, (await course(other)).id)

    // Act
    const replies = [
      await t.api.get(`/api/v1/enrollments/${randomUUID()}`),
      await t.api.get('/api/v1/enrollments/not-a-uuid'),
      await t.api.get(`/api/v1/enrollments/${foreign.id}`),
    ]

    // Assess
    expect(replies.map((r) => r.status)).toEqual([404, 404, 404])
    expect(replies.map((r) => r.body.error.code)).toEqual([404, 404, 404])
  })
})

describe('Route: PATCH /api/v1/enrollments/{id}', () => {
  it('sets the due date (an offset is stored in UTC) and returns the enrollment', async () => {
    // Prepare
    const t = await newTenant()
    const e = await enroll(t, (await user(t)).id, (await course(t)).id)

    // Act
    const reply = await t.api.patch(`/api/v1/enrollments/${e.id}`, { due_date: '2027-06-01T02:00:00+02:00' })

    // Assess
    expect(reply.status).toBe(200)
    expect(reply.body.data).toMatchObject({
      id: e.id,
      status: 'active',
      due_date: '2027-06-01T00:00:00.000Z',
    })
    expect(Date.parse(reply.body.data.updated_at)).toBeGreaterThanOrEqual(Date.parse(e.created_at))
    expect((await t.api.get(`/api/v1/enrollments/${e.id}`)).body.data).toEqual(reply.body.data)
  })

  it('removes the due date with null', async () => {
    // Prepare
    const t = await newTenant()
    const e = await enroll(t, (await user(t)).id, (await course(t)).id, { due_date: '2027-01-01T00:00:00Z' })

    // Act
    const reply = await t.api.patch(`/api/v1/enrollments/${e.id}`, { due_date: null })

    // Assess
    expect(reply.status).toBe(200)
    expect(reply.body.data.due_date).toBeNull()
    expect((await t.api.get(`/api/v1/enrollments/${e.id}`)).body.data.due_date).toBeNull()
  })

  it('answers 400 naming due_date when it is invalid or missing, and changes nothing', async () => {
    // Prepare
    const t = await newTenant()
    const e = await enroll(t, (await user(t)).id, (await course(t)).id, { due_date: '2027-01-01T00:00:00Z' })

    // Act
    const replies = [
      await t.api.patch(`/api/v1/enrollments/${e.id}`, { due_date: 'next week' }),
      await t.api.patch(`/api/v1/enrollments/${e.id}`, { due_date: '2027-13-45T00:00:00Z' }),
      await t.api.patch(`/api/v1/enrollments/${e.id}`, { due_date: 20270101 }),
      await t.api.patch(`/api/v1/enrollments/${e.id}`, {}),
      await t.api.patch(`/api/v1/enrollments/${e.id}`),
    ]

    // Assess
    for (const r of replies) {
      expect(r.status).toBe(400)
      expect(r.body).toMatchObject({ data: null, meta: null, error: { code: 400 } })
      expect(r.body.error.message).toContain('due_date')
    }
    expect((await t.api.get(`/api/v1/enrollments/${e.id}`)).body.data.due_date).toBe(
      '2027-01-01T00:00:00.000Z',
    )
  })

  it('answers 404 for an unknown enrollment and 403 for a read-only key', async () => {
    // Prepare
    const t = await newTenant()
    const e = await enroll(t, (await user(t)).id, (await course(t)).id)
    const reader = t.api.withKey(await t.key(['read']))

    // Act
    const missing = await t.api.patch(`/api/v1/enrollments/${randomUUID()}`, { due_date: null })
    const refused = await reader.patch(`/api/v1/enrollments/${e.id}`, { due_date: '2027-01-01T00:00:00Z' })

    // Assess
    expect(missing.status).toBe(404)
    expect(refused.status).toBe(403)
    expect((await t.api.get(`/api/v1/enrollments/${e.id}`)).body.data.due_date).toBeNull()
  })
})

describe('Route: DELETE /api/v1/enrollments/{id}', () => {
  it('needs the admin scope: a read+write key gets 403 and the enrollment stays active', async () => {
    // Prepare
    const t = await newTenant()
    const e = await enroll(t, (await user(t)).id, (await course(t)).id)
    const writer = t.api.withKey(await t.key(['read', 'write']))

    // Act
    const reply = await writer.delete(`/api/v1/enrollments/${e.id}`)

    // Assess
    expect(reply.status).toBe(403)
    expect(reply.body.error.message).toContain('admin')
    expect((await t.api.get(`/api/v1/enrollments/${e.id}`)).body.data.status).toBe('active')
    expect(await events(t, 'enrollment.dropped')).toEqual([])
  })

  it('unenrolls with 204 and no body: status dropped, enrollment.dropped written, course count lowered', async () => {
    // Prepare
    const t = await newTenant()
    const u = await user(t)
    const k = await course(t)
    const e = await enroll(t, u.id, k.id)
    expect((await t.api.get(`/api/v1/courses/${k.id}`)).body.data.enrollment_count).toBe(1)

    // Act
    const reply = await t.api.delete(`/api/v1/enrollments/${e.id}`)

    // Assess
    expect(reply.status).toBe(204)
    expect(reply.text).toBe('')
    expect((await t.api.get(`/api/v1/enrollments/${e.id}`)).body.data).toMatchObject({
      id: e.id,
      status: 'dropped',
      completed_at: null,
    })
    expect((await events(t, 'enrollment.dropped')).map((x) => x.data)).toEqual([
      { enrollmentId: e.id, userId: u.id, courseId: k.id },
    ])
    expect((await t.api.get(`/api/v1/courses/${k.id}`)).body.data.enrollment_count).toBe(0)
    expect(ids(await t.api.get(`/api/v1/courses/${k.id}/enrollments?status=dropped`))).toEqual([e.id])
  })

  it('unenrolls waitlisted and pending_approval enrollments too', async () => {
    // Prepare
    const t = await newTenant()
    const u = await user(t)
    const w = await enroll(t, u.id, (await course(t, { settings: { seatLimit: 0, waitlist: true } })).id)
    const p = await enroll(t, u.id, (await course(t, { settings: { requiresApproval: true } })).id)

    // Act
    const replies = [
      await t.api.delete(`/api/v1/enrollments/${w.id}`),
      await t.api.delete(`/api/v1/enrollments/${p.id}`),
    ]

    // Assess
    expect(replies.map((r) => r.status)).toEqual([204, 204])
    expect((await t.api.get(`/api/v1/enrollments/${w.id}`)).body.data.status).toBe('dropped')
    expect((await t.api.get(`/api/v1/enrollments/${p.id}`)).body.data.status).toBe('dropped')
    expect((await events(t, 'enrollment.dropped')).map((x) => x.data.enrollmentId).sort()).toEqual(
      [w.id, p.id].sort(),
    )
  })

  it('answers 422 for a completed enrollment (native or imported), which stays completed with no event', async () => {
    // Prepare
    const t = await newTenant()
    const u = await user(t)
    const k = await course(t, { modules: [{ title: 'Only', module_type: 'video' }] })
    const e = await enroll(t, u.id, k.id)
    await recordActivity(t.tenant, e.id, { moduleId: k.modules[0]?.id ?? '', kind: 'complete' })
    const old = await imported(t, u.id, (await course(t)).id, '2022-02-02T00:00:00.000Z')

    // Act
    const native = await t.api.delete(`/api/v1/enrollments/${e.id}`)
    const history = await t.api.delete(`/api/v1/enrollments/${old.id}`)

    // Assess
    for (const r of [native, history]) {
      expect(r.status).toBe(422)
      expect(r.body).toMatchObject({ data: null, meta: null, error: { code: 422 } })
    }
    expect((await t.api.get(`/api/v1/enrollments/${e.id}`)).body.data.status).toBe('completed')
    expect((await t.api.get(`/api/v1/enrollments/${old.id}`)).body.data).toMatchObject({
      status: 'completed',
      completed_at: '2022-02-02T00:00:00.000Z',
    })
    expect(await events(t, 'enrollment.dropped')).toEqual([])
  })

  it('is a no-op the second time: 204 again and a single enrollment.dropped', async () => {
    // Prepare
    const t = await newTenant()
    const e = await enroll(t, (await user(t)).id, (await course(t)).id)
    expect((await t.api.delete(`/api/v1/enrollments/${e.id}`)).status).toBe(204)

    // Act
    const again = await t.api.delete(`/api/v1/enrollments/${e.id}`)

    // Assess
    expect(again.status).toBe(204)
    expect(await events(t, 'enrollment.dropped')).toHaveLength(1)
  })

  it('answers 404 for an unknown or non-UUID enrollment', async () => {
    // Prepare
    const t = await newTenant()

    // Act
    const replies = [
      await t.api.delete(`/api/v1/enrollments/${randomUUID()}`),
      await t.api.delete('/api/v1/enrollments/nope'),
    ]

    // Assess
    expect(replies.map((r) => r.status)).toEqual([404, 404])
  })
})

describe('Route: GET /api/v1/enrollments/{id}/progress', () => {
  it('returns the progress object with every module not started for a new enrollment', async () => {
    // Prepare
    const t = await newTenant()
    const k = await course(t, {
      modules: [
        { title: 'Watch', module_type: 'video' },
        { title: 'Read', module_type: 'document', is_required: false },
      ],
    })
    const e = await enroll(t, (await user(t)).id, k.id)

    // Act
    const reply = await t.api.get(`/api/v1/enrollments/${e.id}/progress`)

    // Assess
    expect(reply.status).toBe(200)
    expect(reply.body.meta).toBeNull()
    expect(reply.body.data).toEqual({
      enrollment_id: e.id,
      overall_progress_percent: 0,
      time_spent_seconds: 0,
      last_activity_at: null,
      modules: k.modules.map((m) => ({
        module_id: m.id,
        module_title: m.title,
        status: 'not_started',
        score: null,
        time_spent_seconds: 0,
        completed_at: null,
      })),
    })
  })

  it('reports each module’s status, score, time and completion; optional modules do not count', async () => {
    // Prepare
    const t = await newTenant()
    const k = await course(t, {
      modules: [
        { title: 'Watch', module_type: 'video' },
        { title: 'Check', module_type: 'quiz' },
        { title: 'Extra', module_type: 'html', is_required: false },
      ],
    })
    const [watch, check, extra] = k.modules.map((m) => m.id) as [string, string, string]
    const e = await enroll(t, (await user(t)).id, k.id)
    await recordActivity(t.tenant, e.id, { moduleId: watch, kind: 'start', at: '2026-04-01T09:00:00.000Z' })
    await recordActivity(t.tenant, e.id, {
      moduleId: watch,
      kind: 'progress',
      timeSpentSeconds: 60,
      at: '2026-04-01T09:01:00.000Z',
    })
    await recordActivity(t.tenant, e.id, {
      moduleId: check,
      kind: 'complete',
      score: 75,
      timeSpentSeconds: 30,
      at: '2026-04-01T09:05:00.000Z',
    })

    // Act
    const reply = await t.api.get(`/api/v1/enrollments/${e.id}/progress`)

    // Assess
    expect(reply.body.data).toEqual({
      enrollment_id: e.id,
      overall_progress_percent: 50,
      time_spent_seconds: 90,
      last_activity_at: '2026-04-01T09:05:00.000Z',
      modules: [
        {
          module_id: watch,
          module_title: 'Watch',
          status: 'in_progress',
          score: null,
          time_spent_seconds: 60,
          completed_at: null,
        },
        {
          module_id: check,
          module_title: 'Check',
          status: 'completed',
          score: 75,
          time_spent_seconds: 30,
          completed_at: '2026-04-01T09:05:00.000Z',
        },
        {
          module_id: extra,
          module_title: 'Extra',
          status: 'not_started',
          score: null,
          time_spent_seconds: 0,
          completed_at: null,
        },
      ],
    })
    expect((await t.api.get(`/api/v1/enrollments/${e.id}`)).body.data).toMatchObject({
      status: 'active',
      progress_percent: 50,
      started_at: '2026-04-01T09:00:00.000Z',
      score: 75,
    })
  })

  it('answers 404 for an unknown or non-UUID enrollment', async () => {
    // Prepare
    const t = await newTenant()

    // Act
    const replies = [
      await t.api.get(`/api/v1/enrollments/${randomUUID()}/progress`),
      await t.api.get('/api/v1/enrollments/x/progress'),
    ]

    // Assess
    expect(replies.map((r) => r.status)).toEqual([404, 404])
  })
})

describe('Route: GET /api/v1/courses/{id}/enrollments', () => {
  it('lists the course’s enrollments, filtered by status, with meta', async () => {
    // Prepare
    const t = await newTenant()
    const [a, b, c] = [await user(t), await user(t), await user(t)]
    const [k, other] = [await course(t), await course(t)]
    const ea = await enrollAt(t, minute(0), { user_id: a.id, course_id: k.id })
    const eb = await enrollAt(t, minute(1), { user_id: b.id, course_id: k.id })
    const ec = await enrollAt(t, minute(2), { user_id: c.id, course_id: k.id })
    await enroll(t, a.id, other.id)
    expect((await t.api.delete(`/api/v1/enrollments/${eb.id}`)).status).toBe(204)

    // Act
    const all = await t.api.get(`/api/v1/courses/${k.id}/enrollments`)
    const active = await t.api.get(`/api/v1/courses/${k.id}/enrollments?status=active`)
    const dropped = await t.api.get(`/api/v1/courses/${k.id}/enrollments?status=dropped`)
    const waitlisted = await t.api.get(`/api/v1/courses/${k.id}/enrollments?status=waitlisted`)
    const paged = await t.api.get(`/api/v1/courses/${k.id}/enrollments?per_page=1&page=2`)

    // Assess
    expect(all.status).toBe(200)
    expect(ids(all)).toEqual([ec.id, eb.id, ea.id])
    expect(all.body.meta).toEqual({ page: 1, per_page: 50, total: 3 })
    expect(all.body.data.every((e: { course_id: string }) => e.course_id === k.id)).toBe(true)
    expect(ids(active)).toEqual([ec.id, ea.id])
    expect(active.body.meta.total).toBe(2)
    expect(ids(dropped)).toEqual([eb.id])
    expect(waitlisted.body).toMatchObject({ data: [], meta: { total: 0 } })
    expect(ids(paged)).toEqual([eb.id])
    expect(paged.body.meta).toEqual({ page: 2, per_page: 1, total: 3 })
  })

  it('shows source api for enrollments made over the API, while GET /enrollments/{id} says native', async () => {
    // Prepare
    const t = await newTenant()
    const [a, b, c, d] = [await user(t), await user(t), await user(t), await user(t)]
    const k = await course(t)
    const viaEnrollments = await enroll(t, a.id, k.id)
    const viaCourse = (await t.api.post(`/api/v1/courses/${k.id}/enrollments`, { user_id: b.id })).body.data
    const viaApp = await createEnrollment(t.tenant, { userId: c.id, courseId: k.id, dueDate: null }, 'app')
    const history = await importCompletion(t.tenant, {
      userId: d.id,
      courseId: k.id,
      completedAt: '2023-03-03T00:00:00.000Z',
    })

    // Act
    const listed = await t.api.get(`/api/v1/courses/${k.id}/enrollments`)

    // Assess
    const source = new Map(listed.body.data.map((e: { id: string; source: string }) => [e.id, e.source]))
    expect(Object.fromEntries(source)).toEqual({
      [viaEnrollments.id]: 'api',
      [viaCourse.id]: 'api',
      [viaApp.id]: 'native',
      [history.id]: 'import',
    })
    expect((await t.api.get(`/api/v1/enrollments/${viaEnrollments.id}`)).body.data.source).toBe('native')
    expect((await t.api.get(`/api/v1/enrollments/${viaCourse.id}`)).body.data.source).toBe('native')
    expect((await t.api.get(`/api/v1/enrollments/${history.id}`)).body.data.source).toBe('import')
    const tenantList = await t.api.get(`/api/v1/enrollments?course_id=${k.id}`)
    expect(tenantList.body.data.map((e: { source: string }) => e.source).sort()).toEqual([
      'import',
      'native',
      'native',
      'native',
    ])
  })

  it('shows source api for enrollments made through the bulk route too', async () => {
    // Prepare
    const t = await newTenant()
    const u = await user(t)
    const k = await course(t)
    const bulk = await t.api.post('/api/v1/enrollments/bulk', {
      enrollments: [{ user_id: u.id, course_id: k.id }],
    })
    expect(bulk.status).toBe(201)

    // Act
    const listed = await t.api.get(`/api/v1/courses/${k.id}/enrollments`)

    // Assess
    expect(listed.body.data).toHaveLength(1)
    expect(listed.body.data[0]).toMatchObject({ user_id: u.id, source: 'api' })
    const id = listed.body.data[0].id
    expect((await t.api.get(`/api/v1/enrollments/${id}`)).body.data.source).toBe('native')
  })

  it('answers 400 for an invalid status and 404 for an unknown or non-UUID course', async () => {
    // Prepare
    const t = await newTenant()
    const k = await course(t)

    // Act
    const bad = await t.api.get(`/api/v1/courses/${k.id}/enrollments?status=done`)
    const unknown = await t.api.get(`/api/v1/courses/${randomUUID()}/enrollments`)
    const notUuid = await t.api.get('/api/v1/courses/abc/enrollments')

    // Assess
    expect(bad.status).toBe(400)
    expect(bad.body.error.message).toContain('status')
    expect(unknown.status).toBe(404)
    expect(notUuid.status).toBe(404)
  })
})
