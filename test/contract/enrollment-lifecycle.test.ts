/**
 * The enrollment lifecycle: approval and denial (`lms enrollment approve|deny`), waitlist
 * promotion when a seat frees, and expiry by the scheduled job (`lms jobs run enrollment-expiry`).
 * Course settings have no API route: they are prepared through the service, as an admin would in
 * the app; everything else goes through HTTP and the CLI.
 */
import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import type { Enrollment } from '../../shared/domain/enrollments/enrollment.ts'
import { ServiceUnavailableError } from '../../shared/domain/errors.ts'
import { configureCourse } from '../../shared/services/courses/courses-service.ts'
import { denyEnrollment } from '../../shared/services/enrollments/enrollment-lifecycle.ts'
import { getCourse } from '../../shared/store/courses/courses-store.ts'
import { listOutboxEvents, listOutboxNotifications } from '../../shared/store/outbox/outbox-store.ts'
import { lms } from '../helpers/cli.ts'
import { course, enroll, user } from '../helpers/learning.ts'
import { newTenant, type TestTenant } from '../helpers/tenants.ts'
import { sleep } from '../helpers/until.ts'

const DAY = 86_400_000
const inDays = (n: number) => new Date(Date.now() + n * DAY).toISOString()

const status = async (t: TestTenant, id: string) =>
  (await t.api.get(`/api/v1/enrollments/${id}`)).body.data.status as string

const notifications = async (t: TestTenant, template: string) =>
  (await listOutboxNotifications(t.tenant)).filter((n) => n.template === template)

const events = async (t: TestTenant, name: string) =>
  (await listOutboxEvents(t.tenant)).filter((e) => e.event === name)

async function usersOf(t: TestTenant, n: number) {
  const out: { id: string }[] = []
  for (let i = 0; i < n; i += 20)
    out.push(...(await Promise.all(Array.from({ length: Math.min(20, n - i) }, () => user(t)))))
  return out
}

/** A client's DELETE: a 503 is repeated after the seconds its Retry-After asks for, a few times. */
async function dropAsAClientWould(t: TestTenant, id: string) {
  const statuses: number[] = []
  for (;;) {
    const r = await t.api.delete(`/api/v1/enrollments/${id}`)
    statuses.push(r.status)
    if (r.status !== 503 || statuses.length >= 10) return { statuses }
    await sleep(Number(r.headers['retry-after']) * 1000)
  }
}

/** The deny of `lms enrollment deny`, repeated as a client would after a ServiceUnavailableError. */
async function denyAsAClientWould(t: TestTenant, id: string): Promise<Enrollment> {
  for (let tries = 1; ; tries++) {
    try {
      return await denyEnrollment(t.tenant, id)
    } catch (err) {
      if (!(err instanceof ServiceUnavailableError) || tries >= 10) throw err
      await sleep(err.retryAfterSeconds * 1000)
    }
  }
}

describe('CLI: lms enrollment approve', () => {
  it('makes a pending enrollment active, from the moment of approval, and tells the learner', async () => {
    // Prepare
    const t = await newTenant()
    const u = await user(t)
    const k = await course(t, { settings: { requiresApproval: true, accessDays: 30 } })
    const pending = await enroll(t, u.id, k.id)
    expect(pending.status).toBe('pending_approval')
    const at = new Date(Date.now() + 60_000).toISOString()

    // Act
    const approved = await lms(
      'enrollment',
      'approve',
      '--tenant',
      t.slug,
      '--enrollment',
      pending.id,
      '--at',
      at,
    )

    // Assess
    expect(approved.code).toBe(0)
    expect(approved.json).toMatchObject({
      id: pending.id,
      status: 'active',
      enrolled_at: at,
      access_expires_at: new Date(Date.parse(at) + 30 * DAY).toISOString(),
    })
    expect(await status(t, pending.id)).toBe('active')
    expect((await notifications(t, 'enrollment_approved')).map((n) => [n.userId, n.data])).toEqual([
      [u.id, { enrollmentId: pending.id, courseId: k.id, courseTitle: k.title, status: 'active' }],
    ])
    // The catalog has no approval event: enrollment.created was fired once, at the request.
    expect((await events(t, 'enrollment.created')).map((e) => e.data.status)).toEqual(['pending_approval'])
  })

  it('runs the seat guard again: waitlisted when full with a waitlist, 422 when full without', async () => {
    // Prepare
    const t = await newTenant()
    const [a, b, c] = await usersOf(t, 3)
    const withList = await course(t, { settings: { requiresApproval: true, seatLimit: 1, waitlist: true } })
    const without = await course(t, { settings: { requiresApproval: true, seatLimit: 1 } })
    const first = await enroll(t, a!.id, withList.id)
    const second = await enroll(t, b!.id, withList.id)
    const seated = await enroll(t, a!.id, without.id)
    const refusedOne = await enroll(t, c!.id, without.id)
    expect(
      (await lms('enrollment', 'approve', '--tenant', t.slug, '--enrollment', first.id)).json.status,
    ).toBe('active')
    expect((await lms('enrollment', 'approve', '--tenant', t.slug, '--enrollment', seated.id)).code).toBe(0)

    // Act
    const waitlisted = await lms('enrollment', 'approve', '--tenant', t.slug, '--enrollment', second.id)
    const full = await lms('enrollment', 'approve', '--tenant', t.slug, '--enrollment', refusedOne.id)

    // Assess
    expect(waitlisted.json).toMatchObject({ id: second.id, status: 'waitlisted' })
    expect(full.code).not.toBe(0)
    expect(full.json.error.code).toBe(422)
    expect(full.json.error.message).toMatch(/full/)
    expect(await status(t, refusedOne.id)).toBe('pending_approval')
    expect((await getCourse(t.tenant, withList.id, { consistent: true }))?.seatsTaken).toBe(1)
    expect((await getCourse(t.tenant, without.id, { consistent: true }))?.seatsTaken).toBe(1)
  })

  it('refuses what is not pending approval (409) and what is not there (404), changing nothing', async () => {
    // Prepare
    const t = await newTenant()
    const other = await newTenant()
    const u = await user(t)
    const k = await course(t)
    const active = await enroll(t, u.id, k.id)

    // Act
    const again = await lms('enrollment', 'approve', '--tenant', t.slug, '--enrollment', active.id)
    const deny = await lms('enrollment', 'deny', '--tenant', t.slug, '--enrollment', active.id)
    const missing = await lms('enrollment', 'approve', '--tenant', t.slug, '--enrollment', randomUUID())
    const elsewhere = await lms('enrollment', 'deny', '--tenant', other.slug, '--enrollment', active.id)

    // Assess
    expect(again.json.error).toMatchObject({ code: 409 })
    expect(again.json.error.message).toMatch(/pending approval.*active/)
    expect(deny.json.error).toMatchObject({ code: 409 })
    expect(missing.json.error).toMatchObject({ code: 404 })
    expect(elsewhere.json.error).toMatchObject({ code: 404 })
    expect(await status(t, active.id)).toBe('active')
    expect(await notifications(t, 'enrollment_approved')).toEqual([])
  })
})

describe('CLI: lms enrollment deny', () => {
  it('drops a pending enrollment with enrollment.dropped and tells the learner; it can enroll again', async () => {
    // Prepare
    const t = await newTenant()
    const u = await user(t)
    const k = await course(t, { settings: { requiresApproval: true } })
    const pending = await enroll(t, u.id, k.id)

    // Act
    const denied = await lms('enrollment', 'deny', '--tenant', t.slug, '--enrollment', pending.id)

    // Assess
    expect(denied.json).toMatchObject({ id: pending.id, status: 'dropped' })
    expect((await events(t, 'enrollment.dropped')).map((e) => e.data)).toEqual([
      { enrollmentId: pending.id, userId: u.id, courseId: k.id },
    ])
    expect((await notifications(t, 'enrollment_denied')).map((n) => [n.userId, n.data.status])).toEqual([
      [u.id, 'dropped'],
    ])
    const twice = await lms('enrollment', 'deny', '--tenant', t.slug, '--enrollment', pending.id)
    expect(twice.json.error).toMatchObject({ code: 409 })
    expect((await enroll(t, u.id, k.id)).id).toBe(pending.id)
  })
})

describe('Waitlist promotion', () => {
  it('gives a freed seat to the oldest waitlisted enrollment and tells the learner', async () => {
    // Prepare
    const t = await newTenant()
    const [a, b, c] = await usersOf(t, 3)
    const k = await course(t, { settings: { seatLimit: 1, waitlist: true } })
    const seated = await enroll(t, a!.id, k.id)
    const oldest = await enroll(t, b!.id, k.id)
    const younger = await enroll(t, c!.id, k.id)
    expect([oldest.status, younger.status]).toEqual(['waitlisted', 'waitlisted'])

    // Act
    expect((await t.api.delete(`/api/v1/enrollments/${seated.id}`)).status).toBe(204)

    // Assess
    expect(await status(t, oldest.id)).toBe('active')
    expect(await status(t, younger.id)).toBe('waitlisted')
    expect((await notifications(t, 'waitlist_promoted')).map((n) => [n.userId, n.data])).toEqual([
      [b!.id, { enrollmentId: oldest.id, courseId: k.id, courseTitle: k.title, status: 'active' }],
    ])
    expect((await getCourse(t.tenant, k.id, { consistent: true }))?.seatsTaken).toBe(1)
  })

  it('fills the seats a raised or removed seat limit adds', async () => {
    // Prepare
    const t = await newTenant()
    const people = await usersOf(t, 4)
    const k = await course(t, { settings: { seatLimit: 1, waitlist: true } })
    const rows = []
    for (const p of people) rows.push(await enroll(t, p.id, k.id))

    // Act + Assess: 1 → 2 seats promotes one; no limit promotes the rest
    await configureCourse(t.tenant, k.id, { seatLimit: 2 })
    expect(await Promise.all(rows.map((r) => status(t, r.id)))).toEqual([
      'active',
      'active',
      'waitlisted',
      'waitlisted',
    ])
    await lms('course', 'configure', '--tenant', t.slug, '--course', k.id, '--seat-limit', 'none')
    expect(await Promise.all(rows.map((r) => status(t, r.id)))).toEqual([
      'active',
      'active',
      'active',
      'active',
    ])
    expect(await notifications(t, 'waitlist_promoted')).toHaveLength(3)
  })

  it('admits exactly as many as were freed when 50 seats free at once, each promotion once', async () => {
    // Prepare: 50 seats taken, 60 waiting (enrolled a few at a time: the seat guard decides each;
    // the last 10 enroll after everyone else, so they are the youngest on the waitlist)
    const t = await newTenant()
    const people = await usersOf(t, 110)
    const k = await course(t, { settings: { seatLimit: 50, waitlist: true } })
    const made: { id: string; status: string }[] = []
    for (let i = 0; i < people.length; i += 5)
      made.push(...(await Promise.all(people.slice(i, i + 5).map((p) => enroll(t, p.id, k.id)))))
    const active = made.filter((e) => e.status === 'active')
    expect(active).toHaveLength(50)
    const youngest = made.slice(100).map((e) => e.id)

    // Act: 50 drops at once, each starting a promotion
    const drops = await Promise.all(active.map((e) => dropAsAClientWould(t, e.id)))

    // Assess: every drop succeeded (a 503 at most, repeated after its Retry-After), never a 500
    expect(drops.map((r) => r.statuses.at(-1))).toEqual(active.map(() => 204))
    expect(drops.flatMap((r) => r.statuses).filter((s) => s !== 204 && s !== 503)).toEqual([])
    const listed = await t.api.get(`/api/v1/courses/${k.id}/enrollments?per_page=200`)
    const byStatus = (s: string) => listed.body.data.filter((e: { status: string }) => e.status === s)
    expect([byStatus('active'), byStatus('waitlisted'), byStatus('dropped')].map((l) => l.length)).toEqual([
      50, 10, 50,
    ])
    // Oldest first: the ten still waiting are the ten who joined last.
    expect(
      byStatus('waitlisted')
        .map((e: { id: string }) => e.id)
        .sort(),
    ).toEqual([...youngest].sort())
    expect((await getCourse(t.tenant, k.id, { consistent: true }))?.seatsTaken).toBe(50)
    const promoted = await notifications(t, 'waitlist_promoted')
    expect(promoted).toHaveLength(50)
    expect(new Set(promoted.map((n) => n.data.enrollmentId))).toEqual(
      new Set(byStatus('active').map((e: { id: string }) => e.id)),
    )
  }, 900_000)
})

describe('CLI: lms enrollment deny, 50 at once', () => {
  it('drops each pending enrollment once, tells each learner once, and frees no seat', async () => {
    // Prepare: 50 pending on an approval course with one seat taken and one learner waiting
    const t = await newTenant()
    const people = await usersOf(t, 52)
    const k = await course(t, { settings: { requiresApproval: true, seatLimit: 1, waitlist: true } })
    const [seated, waiting] = [await enroll(t, people[0]!.id, k.id), await enroll(t, people[1]!.id, k.id)]
    expect(await lms('enrollment', 'approve', '--tenant', t.slug, '--enrollment', seated.id)).toMatchObject({
      code: 0,
    })
    expect(
      (await lms('enrollment', 'approve', '--tenant', t.slug, '--enrollment', waiting.id)).json.status,
    ).toBe('waitlisted')
    const bulk = await t.api.post('/api/v1/enrollments/bulk', {
      enrollments: people.slice(2).map((p) => ({ user_id: p.id, course_id: k.id })),
    })
    expect(bulk.body.data).toMatchObject({ created: 50, errors: [] })
    const listed0 = await t.api.get(`/api/v1/courses/${k.id}/enrollments?per_page=200`)
    const pending = (listed0.body.data as { id: string; status: string }[]).filter(
      (e) => e.status === 'pending_approval',
    )
    expect(pending).toHaveLength(50)

    // Act: the service the CLI runs, 50 at once (50 CLI processes would only measure process starts)
    const denied = await Promise.all(pending.map((e) => denyAsAClientWould(t, e.id)))

    // Assess
    expect(denied.map((e) => e.status)).toEqual(pending.map(() => 'dropped'))
    const listed = await t.api.get(`/api/v1/courses/${k.id}/enrollments?per_page=200`)
    expect(
      listed.body.data
        .map((e: { status: string }) => e.status)
        .sort((a: string, b: string) => a.localeCompare(b)),
    ).toEqual(['active', ...pending.map(() => 'dropped'), 'waitlisted'].sort((a, b) => a.localeCompare(b)))
    expect((await getCourse(t.tenant, k.id, { consistent: true }))?.seatsTaken).toBe(1)
    const told = await notifications(t, 'enrollment_denied')
    expect(told.map((n) => n.data.enrollmentId).sort()).toEqual(pending.map((e) => e.id).sort())
    expect(await status(t, waiting.id)).toBe('waitlisted')
  }, 900_000)
})

describe('CLI: lms jobs run enrollment-expiry', () => {
  it('expires an enrollment not completed within the access days, frees its seat, and allows a clean re-enrollment', async () => {
    // Prepare
    const t = await newTenant()
    const [a, b] = await usersOf(t, 2)
    const k = await course(t, { settings: { seatLimit: 1, waitlist: true } })
    await lms('course', 'configure', '--tenant', t.slug, '--course', k.id, '--access-days', '30')
    const first = await enroll(t, a!.id, k.id)
    const waiting = await enroll(t, b!.id, k.id)

    // Act + Assess: not yet
    const early = await lms('jobs', 'run', 'enrollment-expiry', '--at', inDays(29))
    expect(early.code).toBe(0)
    expect(await status(t, first.id)).toBe('active')

    // Act + Assess: past the 30 days
    const at = inDays(31)
    const ran = await lms('jobs', 'run', 'enrollment-expiry', '--at', at)
    expect(ran.json.expired).toBeGreaterThanOrEqual(1)
    expect(await status(t, first.id)).toBe('expired')
    const promoted = (await t.api.get(`/api/v1/enrollments/${waiting.id}`)).body.data
    expect(promoted).toMatchObject({ status: 'active', enrolled_at: at })
    expect(promoted.access_expires_at).toBe(new Date(Date.parse(at) + 30 * DAY).toISOString())
    expect((await getCourse(t.tenant, k.id, { consistent: true }))?.seatsTaken).toBe(1)

    // Running again for the same moment changes nothing more
    await lms('jobs', 'run', 'enrollment-expiry', '--at', at)
    expect(await status(t, waiting.id)).toBe('active')
    expect(await notifications(t, 'waitlist_promoted')).toHaveLength(1)

    // The expired pair re-enrolls: same record, clean slate (waitlisted: the seat is taken)
    const again = await t.api.post('/api/v1/enrollments', { user_id: a!.id, course_id: k.id })
    expect(again.status).toBe(201)
    expect(again.body.data).toMatchObject({ id: first.id, status: 'waitlisted', progress_percent: 0 })
  })

  it('refuses an access-days value that is not a whole number of days', async () => {
    const t = await newTenant()
    const k = await course(t)
    const zero = await lms('course', 'configure', '--tenant', t.slug, '--course', k.id, '--access-days', '0')
    expect(zero.json.error).toMatchObject({ code: 400 })
    expect(zero.json.error.message).toMatch(/access_days/)
    const none = await lms(
      'course',
      'configure',
      '--tenant',
      t.slug,
      '--course',
      k.id,
      '--access-days',
      'none',
    )
    expect(none.json.access_days).toBeNull()
  })

  it('names the jobs it knows when asked for another', async () => {
    const unknown = await lms('jobs', 'run', 'nightly-cleanup')
    expect(unknown.code).not.toBe(0)
    expect(unknown.json.error.message).toMatch(/enrollment-expiry, usage-alerts/)
  })
})
