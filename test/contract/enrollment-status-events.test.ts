/**
 * `enrollment.status_changed` (api-additions section 5, decision 0046): one delivery for each
 * approval, denial, waitlist promotion, expiry and reactivation, through the real relay and
 * webhook worker, to the endpoints that chose it and no other; a refused approval sends nothing.
 */
import { describe, expect, it } from 'vitest'
import { lms } from '../helpers/cli.ts'
import { course, enroll, user } from '../helpers/learning.ts'
import { untilAllRelayed } from '../helpers/outbox.ts'
import { startReceiver, type Received } from '../helpers/receiver.ts'
import { newTenant, type TestTenant } from '../helpers/tenants.ts'

const DAY = 86_400_000
const ENDPOINTS = '/api/v1/webhooks/endpoints'
const STATUS_CHANGED = 'enrollment.status_changed'

interface Envelope {
  readonly id: string
  readonly event: string
  readonly data: Record<string, unknown>
}

const envelope = (got: Received): Envelope => JSON.parse(got.raw.toString('utf8')) as Envelope

async function endpointOverApi(t: TestTenant, url: string, events: string[]) {
  const res = await t.api.post(ENDPOINTS, { url, events })
  expect(res.status).toBe(201)
  expect(res.body.data.events).toEqual(events)
}

const approve = (t: TestTenant, id: string) => t.api.post(`/api/v1/enrollments/${id}/approve`, {})

describe('Webhook event: enrollment.status_changed', () => {
  it('is delivered once for each reason, with the status before and after, only where it was chosen', async () => {
    // Prepare: one seat, a waitlist, approval, and access ending 30 days after it begins
    const t = await newTenant()
    const [a, b, c] = [await user(t), await user(t), await user(t)]
    // Their user.created events are relayed before the endpoints exist, so no endpoint hears of them.
    await untilAllRelayed(t.tenant)
    const r = await startReceiver()
    const other = await startReceiver()
    await endpointOverApi(t, `${r.url}/status`, [STATUS_CHANGED])
    await endpointOverApi(t, `${other.url}/users`, ['user.created'])
    const k = await course(t, {
      settings: { requiresApproval: true, seatLimit: 1, waitlist: true, accessDays: 30 },
    })
    const seated = await enroll(t, a.id, k.id)
    const waiting = await enroll(t, b.id, k.id)
    const refused = await enroll(t, c.id, k.id)

    // Act
    expect((await approve(t, seated.id)).body.data.status).toBe('active')
    expect((await approve(t, waiting.id)).body.data.status).toBe('waitlisted')
    expect((await t.api.post(`/api/v1/enrollments/${refused.id}/deny`, {})).status).toBe(200)
    const expiry = await lms(
      'jobs',
      'run',
      'enrollment-expiry',
      '--at',
      new Date(Date.now() + 31 * DAY).toISOString(),
    )
    expect(expiry.code).toBe(0)
    const again = await t.api.post('/api/v1/enrollments', { user_id: c.id, course_id: k.id })
    const later = await user(t)

    // Assess
    expect(again.body.data).toMatchObject({ id: refused.id, status: 'pending_approval' })
    const got = (await r.waitFor(6)).map(envelope)
    expect(got.every((e) => e.event === STATUS_CHANGED)).toBe(true)
    const seen = got.map(({ data }) => [data.enrollmentId, data.previousStatus, data.status, data.reason])
    expect(seen.sort()).toEqual(
      [
        [seated.id, 'pending_approval', 'active', 'approved'],
        [waiting.id, 'pending_approval', 'waitlisted', 'approved'],
        [refused.id, 'pending_approval', 'dropped', 'denied'],
        [seated.id, 'active', 'expired', 'expired'],
        [waiting.id, 'waitlisted', 'active', 'promoted'],
        [refused.id, 'dropped', 'pending_approval', 'reactivated'],
      ].sort(),
    )
    const forB = got.find((e) => e.data.reason === 'promoted')
    expect(forB?.data).toMatchObject({ userId: b.id, courseId: k.id })
    // Barrier: every event is relayed, each fanned out to the endpoints that chose it.
    const relayed = await untilAllRelayed(t.tenant)
    const statusEvents = relayed.filter((e) => e.event === STATUS_CHANGED)
    expect(statusEvents.map((e) => e.deliveries)).toEqual(statusEvents.map(() => 1))
    // The other endpoint hears of the later user it chose, and of nothing before it.
    const heard = (await other.waitFor(1)).map(envelope)
    expect(heard.map((e) => [e.event, e.data.userId])).toEqual([['user.created', later.id]])
    expect(r.requests).toHaveLength(6)
  })

  it('sends nothing for a refused approval (409); the CLI approval after it is delivered alone', async () => {
    // Prepare
    const t = await newTenant()
    const r = await startReceiver()
    const made = await lms(
      'webhook',
      'create',
      '--tenant',
      t.slug,
      '--url',
      `${r.url}/status`,
      '--events',
      STATUS_CHANGED,
    )
    expect(made.code).toBe(0)
    expect(made.json.events).toEqual([STATUS_CHANGED])
    const u = await user(t)
    const open = await course(t)
    const gated = await course(t, { settings: { requiresApproval: true } })
    const active = await enroll(t, u.id, open.id)
    const pending = await enroll(t, u.id, gated.id)

    // Act
    const rejected = await approve(t, active.id)
    const approved = await lms('enrollment', 'approve', '--tenant', t.slug, '--enrollment', pending.id)

    // Assess
    expect(rejected.status).toBe(409)
    expect(approved.json).toMatchObject({ id: pending.id, status: 'active' })
    const [only] = (await r.waitFor(1)).map(envelope)
    expect(only).toMatchObject({
      event: STATUS_CHANGED,
      data: {
        enrollmentId: pending.id,
        userId: u.id,
        courseId: gated.id,
        previousStatus: 'pending_approval',
        status: 'active',
        reason: 'approved',
      },
    })
    const relayed = await untilAllRelayed(t.tenant)
    expect(relayed.filter((e) => e.event === STATUS_CHANGED).map((e) => e.data.enrollmentId)).toEqual([
      pending.id,
    ])
    expect(r.requests).toHaveLength(1)
  })
})
