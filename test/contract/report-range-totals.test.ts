/**
 * Date-range totals of the enrollments and completions reports from the hour histograms
 * (decision 0026): exact at hour and day boundaries (bounds exclusive), with status and pass/fail,
 * and as drops and reactivations move enrollments between statuses and days.
 */
import { describe, expect, it } from 'vitest'
import { importCompletion } from '../../shared/services/enrollments/learner-service.ts'
import { course, user } from '../helpers/learning.ts'
import { newTenant, type TestTenant } from '../helpers/tenants.ts'

async function page(t: TestTenant, path: string) {
  const r = await t.api.get(`${path}${path.includes('?') ? '&' : '?'}per_page=100`)
  expect(r.status, path).toBe(200)
  // Every row fits one page: the listing itself is the count the total must match.
  expect(r.body.meta.total, path).toBe(r.body.data.length)
  return r.body.meta.total as number
}

describe('Report totals over a date range', () => {
  it('counts enrollments and completions exactly across hour and day boundaries, with status and pass/fail', async () => {
    // Prepare: an imported completion is enrolled and completed at the instant it was completed.
    const t = await newTenant()
    const c = await course(t)
    const instants = [
      '2026-03-10T10:00:00.000Z',
      '2026-03-10T10:00:00.001Z',
      '2026-03-10T10:59:59.999Z',
      '2026-03-10T11:00:00.000Z',
      '2026-03-11T00:00:00.000Z',
      '2026-03-12T23:59:59.999Z',
      '2026-04-01T05:30:00.000Z',
    ]
    for (const at of instants) {
      await importCompletion(t.tenant, {
        userId: (await user(t)).id,
        courseId: c.id,
        completedAt: at,
        score: 70,
      })
    }
    const live = await t.api.post('/api/v1/enrollments', { user_id: (await user(t)).id, course_id: c.id })
    expect(live.status).toBe(201)
    const cases: [string, number][] = [
      ['after=2026-03-10T10:00:00.000Z&X_before=2026-03-10T11:00:00.000Z', 2],
      ['after=2026-03-10T09:59:59.999Z', 7],
      ['after=2026-03-10T10:30:00.000Z&X_before=2026-03-12T23:59:59.999Z', 3],
      ['before=2026-03-11T00:00:00.000Z', 4],
      ['before=2026-03-11T00:00:00.001Z', 5],
      ['after=2026-03-11T00:00:00.000Z&X_before=2026-04-30T00:00:00.000Z', 2],
      ['after=2026-03-12T23:59:59.998Z&X_before=2026-03-13T00:00:00.000Z', 1],
      ['after=2026-05-01T00:00:00.000Z&X_before=2026-05-02T00:00:00.000Z', 0],
    ]

    // Act + Assess
    for (const [range, completed] of cases) {
      const completions = range.replace(/^(after|before)/, 'completed_$1').replace('X_', 'completed_')
      const enrollments = range.replace(/^(after|before)/, 'enrolled_$1').replace('X_', 'enrolled_')
      expect(await page(t, `/api/v1/reports/completions?${completions}`), completions).toBe(completed)
      expect(await page(t, `/api/v1/reports/completions?${completions}&pass_fail=pass`), completions).toBe(
        completed,
      )
      expect(await page(t, `/api/v1/reports/completions?${completions}&pass_fail=fail`), completions).toBe(0)
      expect(await page(t, `/api/v1/reports/enrollments?${enrollments}&status=completed`), enrollments).toBe(
        completed,
      )
      // The live enrollment (now) is the one active: in a range open towards now.
      const open = range.startsWith('after') && !range.includes('X_before')
      expect(await page(t, `/api/v1/reports/enrollments?${enrollments}&status=active`), enrollments).toBe(
        open ? 1 : 0,
      )
    }
    // Without a status, today's live enrollment counts too.
    expect(await page(t, '/api/v1/reports/enrollments?enrolled_after=2026-03-10T09:59:59.999Z')).toBe(8)
    expect(await page(t, '/api/v1/reports/completions?pass_fail=pass')).toBe(7)
  })

  it('moves an enrollment between statuses and days as it is dropped and enrolled again', async () => {
    // Prepare
    const t = await newTenant()
    const c = await course(t)
    const since = new Date(Date.now() - 60_000).toISOString()
    const ids: string[] = []
    for (let i = 0; i < 3; i++) {
      const r = await t.api.post('/api/v1/enrollments', { user_id: (await user(t)).id, course_id: c.id })
      expect(r.status).toBe(201)
      ids.push(r.body.data.id)
    }
    const count = (status: string) =>
      page(t, `/api/v1/reports/enrollments?enrolled_after=${since}&status=${status}`)

    // Act + Assess
    expect([await count('active'), await count('dropped')]).toEqual([3, 0])
    expect((await t.api.delete(`/api/v1/enrollments/${ids[0]}`)).status).toBe(204)
    expect([await count('active'), await count('dropped')]).toEqual([2, 1])
    const dropped = await t.api.get(`/api/v1/enrollments/${ids[0]}`)
    const again = await t.api.post('/api/v1/enrollments', {
      user_id: dropped.body.data.user_id,
      course_id: c.id,
    })
    expect(again.status).toBe(201)
    expect([await count('active'), await count('dropped')]).toEqual([3, 0])
    expect(await page(t, `/api/v1/reports/enrollments?enrolled_after=${since}`)).toBe(3)
    // A status pages in enrollment order, one row a page, both ways, with or without a date bound.
    for (const query of ['status=active', `status=active&enrolled_after=${since}`]) {
      for (const order of ['desc', 'asc']) {
        const all = await t.api.get(`/api/v1/reports/enrollments?${query}&sort_order=${order}`)
        const ids: string[] = []
        for (let p = 1; p <= 4; p++) {
          const r = await t.api.get(
            `/api/v1/reports/enrollments?${query}&sort_order=${order}&per_page=1&page=${p}`,
          )
          expect(r.body.meta.total).toBe(3)
          ids.push(...r.body.data.map((x: { enrollment_id: string }) => x.enrollment_id))
        }
        expect(ids).toEqual(all.body.data.map((x: { enrollment_id: string }) => x.enrollment_id))
        const times: string[] = all.body.data.map((x: { enrolled_at: string }) => x.enrolled_at)
        const byTime = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)
        expect(times).toEqual([...times].sort((a, b) => (order === 'asc' ? byTime(a, b) : byTime(b, a))))
      }
    }
  })
})
