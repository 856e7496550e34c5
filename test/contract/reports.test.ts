/**
 * The five reports over HTTP (document 001, "Report rows" and "Reports"): every row field, the
 * maths against hand-counted figures, every filter, and 400 naming a bad filter. Learner activity,
 * course settings and sign-ins have no API route: they are arranged through the services.
 */
import { describe, expect, it } from 'vitest'
import { configureCourse } from '../../shared/services/courses/courses-service.ts'
import {
  gradeQuizAttempt,
  importCompletion,
  recordActivity,
} from '../../shared/services/enrollments/learner-service.ts'
import { deactivateUser, recordLogin } from '../../shared/services/users/users-service.ts'
import { course, enroll, user } from '../helpers/learning.ts'
import { newTenant, type TestTenant } from '../helpers/tenants.ts'

const DAY = 86_400_000
const iso = (ms: number) => new Date(ms).toISOString()
const plus = (at: string, ms: number) => iso(Date.parse(at) + ms)

async function group(t: TestTenant, userIds: string[]) {
  const g = await t.api.post('/api/v1/groups', { name: `G ${Math.random()}` })
  expect(g.status).toBe(201)
  expect((await t.api.post(`/api/v1/groups/${g.body.data.id}/members`, { user_ids: userIds })).status).toBe(
    200,
  )
  return g.body.data.id as string
}

const quiz = [{ title: 'Quiz', module_type: 'quiz' }]

describe('GET /api/v1/reports/courses/performance', () => {
  it('computes every figure of a course from its learners, several attempts included, and leaves drafts out', async () => {
    // Prepare: four learners: A fails then passes (80), B passes (90), C only fails (graded), D drops.
    const t = await newTenant()
    const c = await course(t, { modules: quiz })
    await configureCourse(t.tenant, c.id, { category: 'Safety' })
    const draft = await course(t, { publish: false })
    const [a, b, cc, d] = [await user(t), await user(t), await user(t), await user(t)]
    const moduleId = c.modules[0]?.id ?? ''
    const ea = await enroll(t, a.id, c.id)
    const eb = await enroll(t, b.id, c.id)
    const ec = await enroll(t, cc.id, c.id)
    const ed = await enroll(t, d.id, c.id)
    await gradeQuizAttempt(t.tenant, ea.id, { moduleId, raw: 60, max: 100, at: plus(ea.enrolled_at, 1000) })
    await gradeQuizAttempt(t.tenant, ea.id, {
      moduleId,
      raw: 80,
      max: 100,
      at: plus(ea.enrolled_at, 3600_000),
    })
    await gradeQuizAttempt(t.tenant, eb.id, {
      moduleId,
      raw: 90,
      max: 100,
      at: plus(eb.enrolled_at, 7200_000),
    })
    await gradeQuizAttempt(t.tenant, ec.id, { moduleId, raw: 40, max: 100, at: plus(ec.enrolled_at, 1000) })
    expect((await t.api.delete(`/api/v1/enrollments/${ed.id}`)).status).toBe(204)

    // Act
    const r = await t.api.get('/api/v1/reports/courses/performance')

    // Assess
    expect(r.status).toBe(200)
    expect(r.body.meta).toEqual({ page: 1, per_page: 50, total: 1 })
    expect(r.body.data).toEqual([
      {
        course_id: c.id,
        course_title: c.title,
        total_enrollments: 4,
        completions: 2,
        completion_rate_percent: 50,
        average_score: 85,
        pass_rate_percent: 66.67,
        average_time_to_complete_seconds: 5400,
        drop_off_rate_percent: 25,
      },
    ])
    expect(JSON.stringify(r.body.data)).not.toContain(draft.id)
  })

  it('filters by course, category and a creation period, and refuses bad values naming the field', async () => {
    // Prepare
    const t = await newTenant()
    const inCategory = await course(t)
    const other = await course(t)
    await configureCourse(t.tenant, inCategory.id, { category: 'Compliance' })
    const u = await user(t)
    const e = await enroll(t, u.id, inCategory.id)

    // Act
    const byCategory = await t.api.get('/api/v1/reports/courses/performance?category=Compliance')
    const byCourse = await t.api.get(`/api/v1/reports/courses/performance?course_id=${other.id}`)
    const before = await t.api.get(
      `/api/v1/reports/courses/performance?course_id=${inCategory.id}&period_end=${plus(e.enrolled_at, -DAY)}`,
    )
    const inside = await t.api.get(
      `/api/v1/reports/courses/performance?course_id=${inCategory.id}&period_start=${plus(e.enrolled_at, -DAY)}&period_end=${plus(e.enrolled_at, DAY)}`,
    )
    const unknownCategory = await t.api.get('/api/v1/reports/courses/performance?category=Nope')

    // Assess
    expect(byCategory.body.data.map((row: { course_id: string }) => row.course_id)).toEqual([inCategory.id])
    expect(byCourse.body.data).toMatchObject([
      { course_id: other.id, total_enrollments: 0, completion_rate_percent: null },
    ])
    expect(before.body.data).toMatchObject([{ total_enrollments: 0, drop_off_rate_percent: null }])
    expect(inside.body.data).toMatchObject([
      { total_enrollments: 1, completions: 0, completion_rate_percent: 0 },
    ])
    expect(unknownCategory.body).toMatchObject({ data: [], meta: { total: 0 } })
    for (const [query, field] of [
      ['period_start=yesterday', 'period_start'],
      ['period_end=2026-13-01T00:00:00Z', 'period_end'],
      ['course_id=42', 'course_id'],
      ['period_start=2026-02-01T00:00:00Z&period_end=2026-01-01T00:00:00Z', 'period_start'],
    ] as const) {
      const bad = await t.api.get(`/api/v1/reports/courses/performance?${query}`)
      expect(bad.status, query).toBe(400)
      expect(bad.body.error.message, query).toContain(field)
    }
  })
})

describe('GET /api/v1/reports/completions', () => {
  it('lists completions with every row field and every filter and sort', async () => {
    // Prepare
    const t = await newTenant()
    const c1 = await course(t, { modules: [{ title: 'V', module_type: 'video' }] })
    const c2 = await course(t)
    await configureCourse(t.tenant, c1.id, { language: 'fr-CA', certificateValidityDays: 365 })
    const [u1, u2, u3] = [await user(t), await user(t), await user(t)]
    const e1 = await enroll(t, u1.id, c1.id)
    await recordActivity(t.tenant, e1.id, {
      moduleId: c1.modules[0]?.id ?? '',
      kind: 'complete',
      score: 72.5,
      timeSpentSeconds: 300,
      at: '2026-02-01T10:00:00.000Z',
    })
    const imported = await importCompletion(t.tenant, {
      userId: u2.id,
      courseId: c2.id,
      completedAt: '2025-06-01T00:00:00.000Z',
      score: 95,
    })
    await enroll(t, u3.id, c1.id) // not completed: never a row
    const g = await group(t, [u2.id])

    // Act
    const all = await t.api.get('/api/v1/reports/completions')

    // Assess
    expect(all.status).toBe(200)
    expect(all.body.meta).toEqual({ page: 1, per_page: 50, total: 2 })
    const certificate = (await t.api.get(`/api/v1/enrollments/${e1.id}`)).body.data.certificate_id
    expect(certificate).toEqual(expect.any(String))
    expect(all.body.data).toEqual([
      {
        enrollment_id: e1.id,
        user_id: u1.id,
        course_id: c1.id,
        course_title: c1.title,
        completed_at: '2026-02-01T10:00:00.000Z',
        language: 'fr-CA',
        score: 72.5,
        pass_fail: 'pass',
        time_spent_seconds: 300,
        certificate_id: certificate,
      },
      {
        enrollment_id: imported.id,
        user_id: u2.id,
        course_id: c2.id,
        course_title: c2.title,
        completed_at: '2025-06-01T00:00:00.000Z',
        language: 'en',
        score: 95,
        pass_fail: 'pass',
        time_spent_seconds: 0,
        certificate_id: null,
      },
    ])
    const ids = async (query: string) => {
      const r = await t.api.get(`/api/v1/reports/completions?${query}`)
      expect(r.status, query).toBe(200)
      expect(r.body.meta.total, query).toBe(r.body.data.length)
      return r.body.data.map((row: { enrollment_id: string }) => row.enrollment_id)
    }
    expect(await ids(`course_id=${c2.id}`)).toEqual([imported.id])
    expect(await ids(`user_id=${u1.id}`)).toEqual([e1.id])
    expect(await ids(`group_id=${g}`)).toEqual([imported.id])
    expect(await ids('completed_after=2026-01-01T00:00:00Z')).toEqual([e1.id])
    expect(await ids('completed_before=2026-01-01T00:00:00Z')).toEqual([imported.id])
    expect(await ids('completed_after=2026-02-01T10:00:00Z')).toEqual([])
    expect(await ids('pass_fail=fail')).toEqual([])
    expect(await ids('pass_fail=pass&sort_order=asc')).toEqual([imported.id, e1.id])
    expect(await ids('sort_by=score')).toEqual([imported.id, e1.id])
    expect(await ids('sort_by=score&sort_order=asc')).toEqual([e1.id, imported.id])
    expect(await ids(`sort_by=score&sort_order=asc&group_id=${g}`)).toEqual([imported.id])
    const second = await t.api.get('/api/v1/reports/completions?per_page=1&page=2')
    expect(second.body.meta).toEqual({ page: 2, per_page: 1, total: 2 })
    expect(second.body.data.map((row: { enrollment_id: string }) => row.enrollment_id)).toEqual([imported.id])
    for (const [query, field] of [
      ['pass_fail=maybe', 'pass_fail'],
      ['sort_by=title', 'sort_by'],
      ['sort_order=up', 'sort_order'],
      ['completed_after=2026', 'completed_after'],
      ['user_id=nope', 'user_id'],
      ['group_id=nope', 'group_id'],
    ] as const) {
      const bad = await t.api.get(`/api/v1/reports/completions?${query}`)
      expect(bad.status, query).toBe(400)
      expect(bad.body.error.message, query).toContain(field)
    }
  })
})

describe('GET /api/v1/reports/enrollments', () => {
  it('lists enrollments with every row field, newest first, with every filter', async () => {
    // Prepare
    const t = await newTenant()
    const c1 = await course(t)
    const c2 = await course(t)
    const [u1, u2] = [await user(t), await user(t)]
    const first = await enroll(t, u1.id, c1.id)
    const second = await enroll(t, u2.id, c1.id)
    const third = await enroll(t, u1.id, c2.id)
    expect((await t.api.delete(`/api/v1/enrollments/${second.id}`)).status).toBe(204)
    const g = await group(t, [u1.id])

    // Act
    const all = await t.api.get('/api/v1/reports/enrollments')

    // Assess
    expect(all.status).toBe(200)
    expect(all.body.meta.total).toBe(3)
    expect(all.body.data.map((row: { enrollment_id: string }) => row.enrollment_id)).toEqual([
      third.id,
      second.id,
      first.id,
    ])
    expect(all.body.data[1]).toEqual({
      enrollment_id: second.id,
      user_id: u2.id,
      course_id: c1.id,
      course_title: c1.title,
      status: 'dropped',
      enrolled_at: second.enrolled_at,
      due_date: null,
      completed_at: null,
      source: 'native',
      language: 'en',
    })
    const ids = async (query: string) => {
      const r = await t.api.get(`/api/v1/reports/enrollments?${query}`)
      expect(r.status, query).toBe(200)
      expect(r.body.meta.total, query).toBe(r.body.data.length)
      return r.body.data.map((row: { enrollment_id: string }) => row.enrollment_id)
    }
    expect(await ids('sort_order=asc')).toEqual([first.id, second.id, third.id])
    expect(await ids('status=dropped')).toEqual([second.id])
    expect(await ids(`course_id=${c1.id}`)).toEqual([second.id, first.id])
    expect(await ids(`group_id=${g}`)).toEqual([third.id, first.id])
    expect(await ids(`group_id=${g}&status=active&course_id=${c2.id}`)).toEqual([third.id])
    expect(await ids(`enrolled_after=${first.enrolled_at}`)).toEqual([third.id, second.id])
    expect(await ids(`enrolled_before=${third.enrolled_at}&sort_order=asc`)).toEqual([first.id, second.id])
    for (const [query, field] of [
      ['status=gone', 'status'],
      ['enrolled_before=soon', 'enrolled_before'],
      ['sort_order=sideways', 'sort_order'],
      ['course_id=1', 'course_id'],
    ] as const) {
      const bad = await t.api.get(`/api/v1/reports/enrollments?${query}`)
      expect(bad.status, query).toBe(400)
      expect(bad.body.error.message, query).toContain(field)
    }
  })
})

describe('GET /api/v1/reports/compliance', () => {
  it('gives each assignment its status at as_of, with the 30-day expiring window, and filters by status', async () => {
    // Prepare: four learners of a course whose certificates last a year.
    const t = await newTenant()
    const c = await course(t, { modules: [{ title: 'V', module_type: 'video' }] })
    const moduleId = c.modules[0]?.id ?? ''
    await configureCourse(t.tenant, c.id, { certificateValidityDays: 365 })
    const now = Date.now()
    const [fresh, expiring, lapsed, pending, dropped] = [
      await user(t),
      await user(t),
      await user(t),
      await user(t),
      await user(t),
    ]
    const complete = async (userId: string, daysAgo: number) => {
      const e = await enroll(t, userId, c.id)
      await recordActivity(t.tenant, e.id, { moduleId, kind: 'complete', at: iso(now - daysAgo * DAY) })
      return e
    }
    await complete(fresh.id, 10) // expires in 355 days: compliant
    await complete(expiring.id, 350) // expires in 15 days: expiring soon
    await complete(lapsed.id, 400) // expired 35 days ago: non-compliant
    await enroll(t, pending.id, c.id) // assigned, not completed: non-compliant
    const gone = await enroll(t, dropped.id, c.id) // dropped: not an assignment
    expect((await t.api.delete(`/api/v1/enrollments/${gone.id}`)).status).toBe(204)

    // Act
    const all = await t.api.get('/api/v1/reports/compliance')

    // Assess
    expect(all.status).toBe(200)
    expect(all.body.meta.total).toBe(4)
    const byUser = new Map(all.body.data.map((row: { user_id: string }) => [row.user_id, row]))
    expect(byUser.has(dropped.id)).toBe(false)
    expect(byUser.get(pending.id)).toEqual({
      user_id: pending.id,
      course_id: c.id,
      course_title: c.title,
      compliance_status: 'non_compliant',
      last_completion_date: null,
      certificate_expires_at: null,
      days_until_expiry: null,
    })
    expect(byUser.get(fresh.id)).toMatchObject({ compliance_status: 'compliant', days_until_expiry: 354 })
    expect(byUser.get(expiring.id)).toMatchObject({
      compliance_status: 'expiring_soon',
      days_until_expiry: 14,
    })
    expect(byUser.get(lapsed.id)).toMatchObject({
      compliance_status: 'non_compliant',
      last_completion_date: iso(now - 400 * DAY),
      certificate_expires_at: iso(now - 35 * DAY),
      days_until_expiry: -36,
    })
    const users = async (query: string) => {
      const r = await t.api.get(`/api/v1/reports/compliance?${query}`)
      expect(r.status, query).toBe(200)
      expect(r.body.meta.total, query).toBe(r.body.data.length)
      return r.body.data.map((row: { user_id: string }) => row.user_id).sort()
    }
    expect(await users('status=compliant')).toEqual([fresh.id])
    expect(await users('status=expiring_soon')).toEqual([expiring.id])
    expect(await users('status=non_compliant')).toEqual([lapsed.id, pending.id].sort())
    // 360 days ago only the lapsed learner had completed, and that certificate was current;
    // 60 days ago it was expiring within the window.
    expect(await users(`status=compliant&as_of=${iso(now - 360 * DAY)}`)).toEqual([lapsed.id])
    expect(await users(`status=expiring_soon&as_of=${iso(now - 360 * DAY)}`)).toEqual([])
    expect(await users(`status=expiring_soon&as_of=${iso(now - 60 * DAY)}`)).toEqual([lapsed.id])
    expect(await users(`status=non_compliant&as_of=${iso(now - 420 * DAY)}`)).toHaveLength(4)
    expect(await users(`as_of=${iso(now - 380 * DAY)}&status=compliant`)).toEqual([lapsed.id])
    const g = await group(t, [fresh.id, pending.id])
    expect(await users(`group_id=${g}`)).toEqual([fresh.id, pending.id].sort())
    expect(await users(`group_id=${g}&status=non_compliant&course_id=${c.id}`)).toEqual([pending.id])
    for (const [query, field] of [
      ['status=fine', 'status'],
      ['as_of=now', 'as_of'],
      ['group_id=x', 'group_id'],
    ] as const) {
      const bad = await t.api.get(`/api/v1/reports/compliance?${query}`)
      expect(bad.status, query).toBe(400)
      expect(bad.body.error.message, query).toContain(field)
    }
  })
})

describe('GET /api/v1/reports/users/activity', () => {
  it('lists the period’s active users (sign-in, start or completion), with total_logins null', async () => {
    // Prepare
    const t = await newTenant()
    const c = await course(t, {
      modules: [
        { title: 'V', module_type: 'video' },
        { title: 'D', module_type: 'document' },
      ],
    })
    const [signedIn, learner, idle, partner, old, partnerSignedIn, partnerIdle] = [
      await user(t),
      await user(t),
      await user(t),
      await user(t, { user_type: 'partner' }),
      await user(t),
      await user(t, { user_type: 'partner' }),
      await user(t, { user_type: 'partner' }),
    ]
    const now = Date.now()
    await recordLogin(t.tenant, signedIn.id, iso(now - 2 * DAY))
    await recordLogin(t.tenant, old.id, iso(now - 40 * DAY))
    await recordLogin(t.tenant, partnerSignedIn.id, iso(now - DAY))
    const e = await enroll(t, learner.id, c.id)
    await recordActivity(t.tenant, e.id, {
      moduleId: c.modules[0]?.id ?? '',
      kind: 'complete',
      timeSpentSeconds: 250,
      at: iso(now - DAY),
    })
    const p = await enroll(t, partner.id, c.id)
    await recordActivity(t.tenant, p.id, {
      moduleId: c.modules[0]?.id ?? '',
      kind: 'start',
      timeSpentSeconds: 30,
      at: iso(now - 3 * DAY),
    })

    // Most recent activity in the period first; ties, and users without any, by id descending.
    const activityAt = new Map([
      [signedIn.id, now - 2 * DAY],
      [learner.id, now - DAY],
      [partner.id, now - 3 * DAY],
      [partnerSignedIn.id, now - DAY],
      [old.id, now - 40 * DAY],
    ])
    const ordered = (list: string[], since = now - 30 * DAY) => {
      const at = (id: string) => {
        const ms = activityAt.get(id)
        return ms !== undefined && ms >= since ? ms : -Infinity
      }
      return [...list].sort((a, b) => (at(a) !== at(b) ? at(b) - at(a) : a < b ? 1 : -1))
    }

    // Act
    const r = await t.api.get('/api/v1/reports/users/activity')

    // Assess
    expect(r.status).toBe(200)
    const rows = r.body.data as { user_id: string; period_start: string; period_end: string }[]
    expect(rows.map((row) => row.user_id)).toEqual(
      ordered([signedIn.id, learner.id, partner.id, partnerSignedIn.id]),
    )
    expect(r.body.meta.total).toBe(4)
    const row = rows.find((x) => x.user_id === learner.id)
    expect(row).toEqual({
      user_id: learner.id,
      last_login_at: null,
      total_logins: null,
      total_time_spent_seconds: 250,
      courses_started: 1,
      courses_completed: 0,
      period_start: expect.any(String),
      period_end: expect.any(String),
    })
    expect(rows.find((x) => x.user_id === signedIn.id)).toMatchObject({ last_login_at: iso(now - 2 * DAY) })
    const first = rows[0]
    expect(Date.parse(first?.period_end ?? '') - Date.parse(first?.period_start ?? '')).toBe(30 * DAY)
    expect(Math.abs(Date.parse(first?.period_end ?? '') - now)).toBeLessThan(10 * 60_000)

    const ids = async (query: string) => {
      const res = await t.api.get(`/api/v1/reports/users/activity?${query}`)
      expect(res.status, query).toBe(200)
      expect(res.body.meta.total, query).toBe(res.body.data.length)
      return res.body.data.map((x: { user_id: string }) => x.user_id)
    }
    // Reports are history: a deactivated user keeps a row, with the last sign-in as recorded.
    await deactivateUser(t.tenant, old.id)
    expect(await ids('include_inactive=true')).toEqual(
      ordered([signedIn.id, learner.id, idle.id, partner.id, old.id, partnerSignedIn.id, partnerIdle.id]),
    )
    const everyone = await t.api.get('/api/v1/reports/users/activity?include_inactive=true')
    expect(everyone.body.data.find((x: { user_id: string }) => x.user_id === old.id)).toMatchObject({
      last_login_at: iso(now - 40 * DAY),
      courses_started: 0,
    })
    expect(await ids('user_type=partner')).toEqual(ordered([partner.id, partnerSignedIn.id]))
    expect(await ids('user_type=partner&include_inactive=true')).toEqual(
      ordered([partner.id, partnerSignedIn.id, partnerIdle.id]),
    )
    expect(await ids('user_type=internal')).toEqual(ordered([signedIn.id, learner.id]))
    expect(await ids(`active_after=${iso(now - 50 * DAY)}`)).toEqual(
      ordered([signedIn.id, learner.id, partner.id, old.id, partnerSignedIn.id], now - 50 * DAY),
    )
    expect(await ids(`active_before=${iso(now - 30 * DAY)}`)).toEqual([old.id])
    const g = await group(t, [idle.id, learner.id])
    expect(await ids(`group_id=${g}`)).toEqual([learner.id])
    expect(await ids(`group_id=${g}&include_inactive=true`)).toEqual(ordered([idle.id, learner.id]))
    for (const [query, field] of [
      ['include_inactive=yes', 'include_inactive'],
      ['user_type=robot', 'user_type'],
      ['active_after=today', 'active_after'],
      [`active_after=${iso(now)}&active_before=${iso(now - DAY)}`, 'active_after'],
    ] as const) {
      const bad = await t.api.get(`/api/v1/reports/users/activity?${query}`)
      expect(bad.status, query).toBe(400)
      expect(bad.body.error.message, query).toContain(field)
    }
  })
})

describe('Reports and tenants', () => {
  it('shows a tenant only its own data and needs the read scope', async () => {
    // Prepare
    const mine = await newTenant()
    const other = await newTenant()
    const c = await course(mine)
    const u = await user(mine)
    await enroll(mine, u.id, c.id)
    const noRead = await mine.key(['write'])

    // Act
    const theirs = await other.api.get('/api/v1/reports/enrollments')
    const denied = await mine.api.get('/api/v1/reports/enrollments', { key: noRead })

    // Assess
    expect(theirs.body).toMatchObject({ data: [], meta: { total: 0 } })
    expect(denied.status).toBe(403)
  })
})
