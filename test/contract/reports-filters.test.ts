/**
 * The filtered report pages read from maintained keys and aggregates (decision 0023): completions
 * by score from rpt3, and compliance totals by status from the expiry histogram moved in each
 * enrollment write. meta.total is exact and pages follow the report's order.
 */
import { describe, expect, it } from 'vitest'
import { configureCourse } from '../../shared/services/courses/courses-service.ts'
import { importCompletion, recordActivity } from '../../shared/services/enrollments/learner-service.ts'
import { course, enroll, user } from '../helpers/learning.ts'
import { newTenant, type TestTenant } from '../helpers/tenants.ts'

const DAY = 86_400_000
const HOUR = 3_600_000
const iso = (ms: number) => new Date(ms).toISOString()

async function listed(t: TestTenant, path: string) {
  const r = await t.api.get(path)
  expect(r.status, path).toBe(200)
  return r.body as { data: Record<string, unknown>[]; meta: { total: number } }
}

describe('GET /api/v1/reports/completions?sort_by=score', () => {
  it('pages completions in score order (no score last ascending, first descending) with the exact total', async () => {
    // Prepare: four imported completions, one without a score, and an enrollment not completed.
    const t = await newTenant()
    const c = await course(t)
    const scores = [50, 95, null, 72.5]
    const ids = new Map<number | null, string>()
    for (const score of scores) {
      const u = await user(t)
      const e = await importCompletion(t.tenant, {
        userId: u.id,
        courseId: c.id,
        completedAt: '2026-01-01T00:00:00.000Z',
        score,
      })
      ids.set(score, e.id)
    }
    await enroll(t, (await user(t)).id, c.id)
    const order = (list: (number | null)[]) => list.map((s) => ids.get(s))
    const page = async (query: string) => {
      const body = await listed(t, `/api/v1/reports/completions?sort_by=score&${query}`)
      return { ids: body.data.map((r) => r.enrollment_id), total: body.meta.total }
    }

    // Act + Assess
    expect(await page('sort_order=asc')).toEqual({ ids: order([50, 72.5, 95, null]), total: 4 })
    expect(await page('sort_order=desc')).toEqual({ ids: order([null, 95, 72.5, 50]), total: 4 })
    expect(await page('sort_order=asc&per_page=2&page=2')).toEqual({ ids: order([95, null]), total: 4 })
    expect(await page('sort_order=desc&per_page=3')).toEqual({ ids: order([null, 95, 72.5]), total: 4 })
    expect(await page('pass_fail=fail')).toEqual({ ids: [], total: 0 })
    expect((await listed(t, '/api/v1/reports/completions?sort_by=score')).data[1]).toMatchObject({
      enrollment_id: ids.get(95),
      score: 95,
    })
  })
})

describe('GET /api/v1/reports/compliance?status=', () => {
  it('counts each status exactly from the expiry histogram, page by page, as writes move it', async () => {
    // Prepare: a course whose certificates last a year; learners around now and the window's end.
    const t = await newTenant()
    const c = await course(t, { modules: [{ title: 'V', module_type: 'video' }] })
    const moduleId = c.modules[0]?.id ?? ''
    await configureCourse(t.tenant, c.id, { certificateValidityDays: 365 })
    const now = Date.now()
    const complete = async (ago: number) => {
      const e = await enroll(t, (await user(t)).id, c.id)
      await recordActivity(t.tenant, e.id, { moduleId, kind: 'complete', at: iso(now - ago) })
    }
    await complete(10 * DAY) // compliant
    await complete(20 * DAY) // compliant
    await complete(340 * DAY) // expires in 25 days: expiring soon
    await complete(365 * DAY - 2 * HOUR) // expires in 2 hours: expiring soon
    await complete(365 * DAY + 2 * HOUR) // expired 2 hours ago: non-compliant
    await complete(400 * DAY) // non-compliant
    const pending = await user(t)
    await enroll(t, pending.id, c.id) // no completion: non-compliant
    // Dropped, then enrolled again: one assignment without a completion, counted once.
    const again = await user(t)
    const first = await enroll(t, again.id, c.id)
    expect((await t.api.delete(`/api/v1/enrollments/${first.id}`)).status).toBe(204)
    const dropped = await user(t)
    const gone = await enroll(t, dropped.id, c.id)
    expect((await t.api.delete(`/api/v1/enrollments/${gone.id}`)).status).toBe(204)
    await enroll(t, again.id, c.id)

    // Act
    const pages = async (status: string) => {
      const seen: string[] = []
      let total = -1
      for (let p = 1; p <= 6; p++) {
        const body = await listed(t, `/api/v1/reports/compliance?status=${status}&per_page=1&page=${p}`)
        total = body.meta.total
        seen.push(...body.data.map((r) => `${String(r.compliance_status)}`))
      }
      return { total, seen }
    }

    // Assess: each total is exact on every page; the pages hold exactly that many rows of the status.
    expect(await pages('compliant')).toEqual({ total: 2, seen: ['compliant', 'compliant'] })
    expect(await pages('expiring_soon')).toEqual({ total: 2, seen: ['expiring_soon', 'expiring_soon'] })
    expect(await pages('non_compliant')).toEqual({ total: 4, seen: Array(4).fill('non_compliant') })
    const all = await listed(t, '/api/v1/reports/compliance')
    expect(all.meta.total).toBe(8)
    // A future as_of reads the histogram too: in 60 days the two expiring ones have lapsed.
    const later = iso(now + 60 * DAY)
    const inSixtyDays = await listed(t, `/api/v1/reports/compliance?status=non_compliant&as_of=${later}`)
    expect(inSixtyDays.meta.total).toBe(6)
    expect(inSixtyDays.data).toHaveLength(6)
    // The exact (past) reading agrees with the histogram's for the same moment.
    const soonNow = await listed(t, `/api/v1/reports/compliance?status=expiring_soon&as_of=${iso(now)}`)
    expect(soonNow.meta.total).toBe(2)
  })
})

describe('GET /api/v1/reports/courses/performance with a period', () => {
  it('counts the enrollments created inside the period, both ends included, across whole and partial days', async () => {
    // Prepare: imported completions are created when they were completed; one enrollment today.
    const t = await newTenant()
    const c = await course(t)
    const createdAt = [
      '2026-03-01T22:00:00.000Z',
      '2026-03-02T10:00:00.000Z',
      '2026-03-04T23:59:59.999Z',
      '2026-03-05T00:00:00.000Z',
    ]
    for (const at of createdAt) {
      await importCompletion(t.tenant, {
        userId: (await user(t)).id,
        courseId: c.id,
        completedAt: at,
        score: 80,
      })
    }
    await enroll(t, (await user(t)).id, c.id)
    const figures = async (period: string) => {
      const body = await listed(t, `/api/v1/reports/courses/performance?course_id=${c.id}&${period}`)
      expect(body.data, period).toHaveLength(1)
      const row = body.data[0] ?? {}
      return [row.total_enrollments, row.completions]
    }

    // Act + Assess
    expect(await figures('period_start=2026-03-01T22:00:00Z&period_end=2026-03-05T00:00:00Z')).toEqual([4, 4])
    expect(await figures('period_start=2026-03-01T22:00:00.001Z&period_end=2026-03-05T00:00:00Z')).toEqual([
      3, 3,
    ])
    expect(await figures('period_start=2026-03-01T00:00:00Z&period_end=2026-03-04T23:59:59.999Z')).toEqual([
      3, 3,
    ])
    expect(await figures('period_start=2026-03-02T00:00:00Z&period_end=2026-03-04T23:59:59.998Z')).toEqual([
      1, 1,
    ])
    expect(await figures('period_start=2026-03-02T09:00:00Z&period_end=2026-03-02T11:00:00Z')).toEqual([1, 1])
    expect(await figures('period_start=2026-03-02T00:00:00Z')).toEqual([4, 3])
    expect(await figures('period_end=2026-03-02T10:00:00Z')).toEqual([2, 2])
    expect(await figures('period_start=2026-03-06T00:00:00Z&period_end=2026-03-07T00:00:00Z')).toEqual([0, 0])
  })
})

describe('GET /api/v1/reports/enrollments?course_id', () => {
  it("pages one course's enrollments by enrollment date, its total exact through a drop and beside another course", async () => {
    // Prepare: four enrollments in the course (one then dropped), one in another course.
    const t = await newTenant()
    const c = await course(t)
    const other = await course(t)
    const made: { id: string; enrolled_at: string }[] = []
    for (let i = 0; i < 4; i++) {
      made.push((await enroll(t, (await user(t)).id, c.id)) as { id: string; enrolled_at: string })
    }
    await enroll(t, (await user(t)).id, other.id)
    const drop = await t.api.delete(`/api/v1/enrollments/${made[1]?.id}`)
    expect(drop.status).toBeLessThan(300)
    const asc = [...made].sort((a, b) => `${a.enrolled_at}#${a.id}`.localeCompare(`${b.enrolled_at}#${b.id}`))
    const page = async (query: string) => {
      const body = await listed(t, `/api/v1/reports/enrollments?${query}`)
      return { ids: body.data.map((r) => r.enrollment_id), total: body.meta.total }
    }

    // Act + Assess: every page of one, both orders; the drop stays listed, the other course does not.
    for (const [order, list] of [
      ['asc', asc],
      ['desc', [...asc].reverse()],
    ] as const) {
      for (let n = 1; n <= 5; n++) {
        expect(await page(`course_id=${c.id}&sort_order=${order}&per_page=1&page=${n}`)).toEqual({
          ids: list[n - 1] ? [list[n - 1]?.id] : [],
          total: 4,
        })
      }
    }
    expect(await page(`course_id=${c.id}`)).toEqual({ ids: [...asc].reverse().map((e) => e.id), total: 4 })
    expect(await page(`course_id=${c.id}&status=dropped`)).toEqual({ ids: [made[1]?.id], total: 1 })
    expect(await page(`course_id=${other.id}`)).toMatchObject({ total: 1 })
    expect(await page('course_id=00000000-0000-4000-8000-000000000000')).toEqual({ ids: [], total: 0 })
  })
})
