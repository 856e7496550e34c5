/**
 * The completions and compliance reports of one course alone (decision 0025): pages of the
 * course's own keys in the report's order, the page's enrollments read by key, the totals exact.
 * Each listing is compared, page by page, with the same rows read the exact way (a group of every
 * learner narrows nothing but takes the in-memory path).
 */
import { describe, expect, it } from 'vitest'
import { configureCourse } from '../../shared/services/courses/courses-service.ts'
import { importCompletion, recordActivity } from '../../shared/services/enrollments/learner-service.ts'
import { course, enroll, user } from '../helpers/learning.ts'
import { newTenant, type TestTenant } from '../helpers/tenants.ts'

const DAY = 86_400_000
const iso = (ms: number) => new Date(ms).toISOString()

async function listed(t: TestTenant, path: string) {
  const r = await t.api.get(path)
  expect(r.status, path).toBe(200)
  return r.body as { data: { enrollment_id?: string; user_id: string }[]; meta: { total: number } }
}

/** Every row of a listing read one row a page, and the total each page gave. */
async function onePerPage(t: TestTenant, path: string, rows: number) {
  const seen: string[] = []
  const totals = new Set<number>()
  for (let p = 1; p <= rows + 1; p++) {
    const body = await listed(t, `${path}&per_page=1&page=${p}`)
    totals.add(body.meta.total)
    seen.push(...body.data.map((r) => `${r.user_id}/${r.enrollment_id ?? ''}`))
  }
  return { seen, totals: [...totals] }
}

describe('The completions and compliance reports of one course', () => {
  it('pages the course’s completions and assignments in order with exact totals', async () => {
    // Prepare: in the course, imported and live completions, a learner without one, a drop;
    // completions in another course; certificates that expire, so assignments sort by expiry.
    const t = await newTenant()
    const c = await course(t, { modules: [{ title: 'V', module_type: 'video' }] })
    const other = await course(t)
    await configureCourse(t.tenant, c.id, { certificateValidityDays: 365 })
    const now = Date.now()
    const learners = [] as string[]
    for (const ago of [40, 5, 300]) {
      const u = await user(t)
      learners.push(u.id)
      await importCompletion(t.tenant, { userId: u.id, courseId: c.id, completedAt: iso(now - ago * DAY) })
      await importCompletion(t.tenant, {
        userId: u.id,
        courseId: other.id,
        completedAt: iso(now - ago * DAY),
      })
    }
    for (const ago of [2, 200]) {
      const u = await user(t)
      learners.push(u.id)
      const e = (await enroll(t, u.id, c.id)).id
      await recordActivity(t.tenant, e, {
        moduleId: c.modules[0]?.id ?? '',
        kind: 'complete',
        at: iso(now - ago * DAY),
      })
    }
    const waiting = await user(t)
    learners.push(waiting.id)
    await enroll(t, waiting.id, c.id)
    const leaving = await user(t)
    learners.push(leaving.id)
    const left = await enroll(t, leaving.id, c.id)
    expect((await t.api.delete(`/api/v1/enrollments/${left.id}`)).status).toBe(204)
    const g = await t.api.post('/api/v1/groups', { name: 'All learners' })
    expect(
      (await t.api.post(`/api/v1/groups/${g.body.data.id}/members`, { user_ids: learners })).status,
    ).toBe(200)
    const exact = async (path: string) =>
      (await listed(t, `${path}&group_id=${g.body.data.id}&per_page=100`)).data.map(
        (r) => `${r.user_id}/${r.enrollment_id ?? ''}`,
      )

    // Act + Assess: five completions in the course, newest first by default, and oldest first.
    for (const order of ['desc', 'asc']) {
      const path = `/api/v1/reports/completions?course_id=${c.id}&sort_order=${order}`
      expect(await onePerPage(t, path, 5)).toEqual({ seen: await exact(path), totals: [5] })
    }
    // Six assignments (the dropped enrollment is none): no completion first, then by expiry.
    const compliance = `/api/v1/reports/compliance?course_id=${c.id}`
    const assignments = await onePerPage(t, compliance, 6)
    expect(assignments).toEqual({ seen: await exact(compliance), totals: [6] })
    expect(assignments.seen[0]?.startsWith(waiting.id)).toBe(true)
    // Another course's rows never show; an unknown course has none.
    expect((await listed(t, `/api/v1/reports/completions?course_id=${other.id}`)).meta.total).toBe(3)
    const unknown = '00000000-0000-4000-8000-000000000000'
    expect(await listed(t, `/api/v1/reports/compliance?course_id=${unknown}`)).toMatchObject({
      data: [],
      meta: { total: 0 },
    })
  })
})
