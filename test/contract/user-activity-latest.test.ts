/**
 * The user activity report's default listing from the users' latest activity (decision 0024):
 * the count and the order stay exact when a write takes an instant away (a backdated start, an
 * older sign-in written over a newer one), when an enrollment is replaced (what was done in it
 * stays history), and the listing agrees row for row with the exact reads a group takes.
 */
import { describe, expect, it } from 'vitest'
import { importCompletion, recordActivity } from '../../shared/services/enrollments/learner-service.ts'
import { recordLogin } from '../../shared/services/users/users-service.ts'
import { course, enroll, user } from '../helpers/learning.ts'
import { newTenant, type TestTenant } from '../helpers/tenants.ts'

const DAY = 86_400_000
const iso = (ms: number) => new Date(ms).toISOString()

interface Row {
  user_id: string
  last_login_at: string | null
  courses_started: number
  courses_completed: number
}

async function listing(t: TestTenant, query: string): Promise<{ rows: Row[]; total: number }> {
  const r = await t.api.get(`/api/v1/reports/users/activity?per_page=100&${query}`)
  expect(r.status, query).toBe(200)
  // The period runs up to each request's own now: compared without it.
  const rows = (r.body.data as (Row & { period_start?: string; period_end?: string })[]).map(
    ({ period_start: _s, period_end: _e, ...row }) => row,
  )
  return { rows, total: r.body.meta.total as number }
}

describe('GET /api/v1/reports/users/activity from the latest activity', () => {
  it('stays exact through backdated writes, older sign-ins and replaced enrollments, most recent first', async () => {
    // Prepare
    const t = await newTenant()
    const c = await course(t, {
      modules: [
        { title: 'V', module_type: 'video' },
        { title: 'D', module_type: 'document' },
      ],
    })
    const other = await course(t, { modules: [{ title: 'V', module_type: 'video' }] })
    const moduleId = c.modules[0]?.id ?? ''
    const now = Date.now()
    const [backdated, reSignedIn, imported, replaced, steady, edge, outside, never] = [
      await user(t),
      await user(t),
      await user(t),
      await user(t),
      await user(t),
      await user(t, { user_type: 'partner' }),
      await user(t),
      await user(t),
    ]
    // A start yesterday, then activity dated 40 days ago: the start moves out of the period.
    const b = (await enroll(t, backdated.id, c.id)).id
    await recordActivity(t.tenant, b, { moduleId, kind: 'start', at: iso(now - DAY) })
    await recordActivity(t.tenant, b, { moduleId, kind: 'progress', at: iso(now - 40 * DAY) })
    // A sign-in an hour ago, then one recorded as 45 days ago: the last sign-in is the older one.
    await recordLogin(t.tenant, reSignedIn.id, iso(now - 3600_000))
    await recordLogin(t.tenant, reSignedIn.id, iso(now - 45 * DAY))
    // A completion brought from a former system, five days ago.
    await importCompletion(t.tenant, {
      userId: imported.id,
      courseId: other.id,
      completedAt: iso(now - 5 * DAY),
    })
    // Started two days ago, dropped and enrolled again: the new enrollment starts afresh.
    const r1 = (await enroll(t, replaced.id, c.id)).id
    await recordActivity(t.tenant, r1, { moduleId, kind: 'start', at: iso(now - 2 * DAY) })
    expect((await t.api.delete(`/api/v1/enrollments/${r1}`)).status).toBe(204)
    expect((await enroll(t, replaced.id, c.id)).id).toBe(r1)
    const s = (await enroll(t, steady.id, c.id)).id
    await recordActivity(t.tenant, s, { moduleId, kind: 'start', at: iso(now - 10 * DAY) })
    await recordLogin(t.tenant, edge.id, iso(now - 29 * DAY))
    await recordLogin(t.tenant, outside.id, iso(now - 31 * DAY))

    // Act
    const all = await listing(t, '')

    // Assess: the order is by the latest activity inside the period.
    expect(all.rows.map((r) => r.user_id)).toEqual([replaced.id, imported.id, steady.id, edge.id])
    expect(all.total).toBe(4)
    expect(all.rows[0]).toMatchObject({ courses_started: 1, courses_completed: 0, last_login_at: null })
    expect(all.rows[1]).toMatchObject({ courses_started: 1, courses_completed: 1 })
    expect(all.rows[3]).toMatchObject({ last_login_at: iso(now - 29 * DAY), courses_started: 0 })

    // A page at a time, the same rows and the same total.
    const paged: string[] = []
    for (let page = 1; page <= 5; page++) {
      const r = await t.api.get(`/api/v1/reports/users/activity?per_page=1&page=${page}`)
      expect(r.status).toBe(200)
      expect(r.body.meta.total).toBe(4)
      paged.push(...r.body.data.map((x: Row) => x.user_id))
    }
    expect(paged).toEqual(all.rows.map((r) => r.user_id))

    // A group of everyone takes the exact reads: the same rows, in the same order.
    const g = await t.api.post('/api/v1/groups', { name: 'Everyone' })
    const everyone = [backdated, reSignedIn, imported, replaced, steady, edge, outside, never].map(
      (u) => u.id,
    )
    expect(
      (await t.api.post(`/api/v1/groups/${g.body.data.id}/members`, { user_ids: everyone })).status,
    ).toBe(200)
    expect(await listing(t, `group_id=${g.body.data.id}`)).toEqual(all)

    // With include_inactive the active come first: a page among them is the default listing's
    // page, with every user counted; the whole listing (exact reads) agrees.
    const everyoneListed = await listing(t, 'include_inactive=true')
    const firstTwo = await t.api.get('/api/v1/reports/users/activity?include_inactive=true&per_page=2')
    expect(firstTwo.body.meta.total).toBe(everyoneListed.total)
    expect(everyoneListed.total).toBeGreaterThanOrEqual(8)
    expect(firstTwo.body.data.map((r: Row) => r.user_id)).toEqual(
      everyoneListed.rows.slice(0, 2).map((r) => r.user_id),
    )
    expect(everyoneListed.rows.slice(0, 4)).toEqual(all.rows)

    // By user type: the type's own count and rows, as the exact reads of a group give them.
    const typed = async (type: string) => ({
      latest: await listing(t, `user_type=${type}`),
      exact: await listing(t, `user_type=${type}&group_id=${g.body.data.id}`),
    })
    const partners = await typed('partner')
    expect(partners.latest).toEqual(partners.exact)
    expect(partners.latest.rows.map((r) => r.user_id)).toEqual([edge.id])
    const internal = await typed('internal')
    expect(internal.latest).toEqual(internal.exact)
    expect(internal.latest.rows.map((r) => r.user_id)).toEqual([replaced.id, imported.id, steady.id])
    expect((await typed('volunteer')).latest).toEqual({ rows: [], total: 0 })
    const partnersToo = await t.api.get(
      '/api/v1/reports/users/activity?user_type=partner&include_inactive=true&per_page=1',
    )
    expect(partnersToo.body.meta.total).toBe(1)

    // A later sign-in moves the user to the top; one of the users left out comes back in.
    await recordLogin(t.tenant, outside.id, iso(now - 60_000))
    const after = await listing(t, '')
    expect(after.rows.map((r) => r.user_id)).toEqual([
      outside.id,
      replaced.id,
      imported.id,
      steady.id,
      edge.id,
    ])
    expect(after.total).toBe(5)
  })

  it('answers a period that ends before some activity from the exact reads', async () => {
    // Prepare: activity dated tomorrow is after the default period's end.
    const t = await newTenant()
    const c = await course(t, { modules: [{ title: 'V', module_type: 'video' }] })
    const [ahead, today] = [await user(t), await user(t)]
    const now = Date.now()
    const e = (await enroll(t, ahead.id, c.id)).id
    await recordActivity(t.tenant, e, { moduleId: c.modules[0]?.id ?? '', kind: 'start', at: iso(now + DAY) })
    await recordLogin(t.tenant, today.id, iso(now - 60_000))

    // Act
    const listed = await listing(t, '')
    const earlier = await listing(t, `active_before=${iso(now - 30_000)}`)

    // Assess
    expect(listed).toEqual({ rows: [expect.objectContaining({ user_id: today.id })], total: 1 })
    expect(earlier).toEqual({ rows: [expect.objectContaining({ user_id: today.id })], total: 1 })
  })
})
