/**
 * The events API (api-additions section 5; decision 0044): the tenant's catalog events of the last
 * 30 days as the webhook envelope, newest first, with type and time filters and paging; internal
 * events never; another tenant's id 404; read scope; erasure redacts the learner's e-mail.
 */
import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { newEvent } from '../../shared/domain/events.ts'
import { createEndpoint } from '../../shared/services/deliveries/webhooks-service.ts'
import { appendEvent } from '../../shared/store/outbox/outbox-store.ts'
import { lms } from '../helpers/cli.ts'
import { startReceiver } from '../helpers/receiver.ts'
import { newTenant, userBody, type TestTenant } from '../helpers/tenants.ts'
import { until } from '../helpers/until.ts'

interface Envelope {
  id: string
  event: string
  createdAt: string
  data: Record<string, unknown>
}

/**
 * The listing once it holds `n` events and counts them (the indexes are read eventually
 * consistently; the total's counters move when the relay has handed the events on).
 */
async function eventsWhen(
  t: TestTenant,
  query: string,
  n: number,
): Promise<{ data: Envelope[]; meta: unknown }> {
  const r = await until(
    () => t.api.get(`/api/v1/events${query}`),
    (r) => r.status === 200 && (r.body.data as unknown[]).length === n && r.body.meta.total >= n,
  )
  expect(r.status).toBe(200)
  return r.body as { data: Envelope[]; meta: unknown }
}

/** A published course, two users, one enrolled: user.created ×2, course.published, enrollment.created. */
async function activity(t: TestTenant) {
  const c = await t.api.post('/api/v1/courses', { title: `Course ${randomUUID().slice(0, 6)}` })
  const courseId = c.body.data.id as string
  expect(
    (await t.api.post(`/api/v1/courses/${courseId}/modules`, { title: 'M', module_type: 'video' })).status,
  ).toBe(201)
  const a = await t.api.post('/api/v1/users', userBody())
  const b = await t.api.post('/api/v1/users', userBody())
  expect((await t.api.patch(`/api/v1/courses/${courseId}`, { status: 'published' })).status).toBe(200)
  const e = await t.api.post('/api/v1/enrollments', { user_id: a.body.data.id, course_id: courseId })
  expect(e.status).toBe(201)
  return {
    courseId,
    a: a.body.data as { id: string; email: string },
    b: b.body.data as { id: string; email: string },
  }
}

describe('Route: GET /api/v1/events', () => {
  it('lists what real actions emitted, newest first, each the envelope a webhook receiver got', async () => {
    // Prepare
    const t = await newTenant()
    const r = await startReceiver()
    await createEndpoint(t.tenant, `${r.url}/hook`, [
      'user.created',
      'course.published',
      'enrollment.created',
    ])
    const { a } = await activity(t)
    const received = (await r.waitFor(4)).map((q) => JSON.parse(q.raw.toString('utf8')) as Envelope)

    // Act
    const listed = await eventsWhen(t, '', 4)

    // Assess
    expect(listed.meta).toEqual({ page: 1, per_page: 50, total: 4 })
    expect(listed.data.map((e) => e.event)).toEqual([
      'enrollment.created',
      'course.published',
      'user.created',
      'user.created',
    ])
    const times = listed.data.map((e) => e.createdAt)
    expect(times).toEqual([...times].sort().reverse())
    // The same envelope as the delivery, but for `id`: a delivery's is its own (one per endpoint).
    for (const e of listed.data) {
      const got = received.find(
        (x) => x.event === e.event && x.createdAt === e.createdAt && x.data.userId === e.data.userId,
      )
      expect(got).toBeDefined()
      expect({ ...got, id: e.id }).toEqual(e)
    }
    expect(listed.data.find((e) => e.event === 'enrollment.created')?.data.userId).toBe(a.id)
    // One by id, the same envelope.
    const first = listed.data[0]
    const one = await t.api.get(`/api/v1/events/${first?.id}`)
    expect(one.status).toBe(200)
    expect(one.body.data).toEqual(first)
  })

  it('filters by one type or several, by created_after and created_before, and pages', async () => {
    // Prepare
    const t = await newTenant()
    await activity(t)
    const all = await eventsWhen(t, '', 4)
    const [newest, second, third, oldest] = all.data as [Envelope, Envelope, Envelope, Envelope]

    // Act
    const users = await t.api.get('/api/v1/events?type=user.created')
    const several = await t.api.get('/api/v1/events?type=user.created,enrollment.created&per_page=2')
    const severalPage2 = await t.api.get(
      '/api/v1/events?type=user.created,enrollment.created&per_page=2&page=2',
    )
    const after = await t.api.get(`/api/v1/events?created_after=${encodeURIComponent(oldest.createdAt)}`)
    const before = await t.api.get(`/api/v1/events?created_before=${encodeURIComponent(newest.createdAt)}`)
    const page2 = await t.api.get('/api/v1/events?per_page=3&page=2')

    // Assess
    expect(users.body.data.map((e: Envelope) => e.event)).toEqual(['user.created', 'user.created'])
    expect(users.body.meta.total).toBe(2)
    expect(several.body.meta).toEqual({ page: 1, per_page: 2, total: 3 })
    expect([...several.body.data, ...severalPage2.body.data].map((e: Envelope) => e.event)).toEqual([
      'enrollment.created',
      'user.created',
      'user.created',
    ])
    expect(after.body.data.map((e: Envelope) => e.id)).toEqual(
      [newest, second, third].filter((e) => e.createdAt > oldest.createdAt).map((e) => e.id),
    )
    expect(before.body.data.map((e: Envelope) => e.id)).toEqual(
      [second, third, oldest].filter((e) => e.createdAt < newest.createdAt).map((e) => e.id),
    )
    expect(page2.body.data).toEqual([oldest])
    expect(page2.body.meta).toEqual({ page: 2, per_page: 3, total: 4 })
  })

  it('answers 400 naming type, created_after or created_before', async () => {
    const t = await newTenant()
    for (const [query, field] of [
      ['type=user.exploded', 'type'],
      ['type=user.created,module.completed', 'type'],
      ['created_after=yesterday', 'created_after'],
      ['created_before=2026-13-01T00:00:00Z', 'created_before'],
      ['created_after=2026-11-02T00:00:00Z&created_before=2026-11-01T00:00:00Z', 'created_after'],
    ] as const) {
      const r = await t.api.get(`/api/v1/events?${query}`)
      expect(r.status, query).toBe(400)
      expect(r.body.error.message, query).toContain(field)
    }
  })

  it('never lists internal events nor events older than 30 days, and reads with a read-only key', async () => {
    // Prepare
    const t = await newTenant()
    const now = new Date()
    const old = new Date(now.getTime() - 31 * 24 * 3600 * 1000).toISOString()
    await appendEvent(t.tenant, newEvent('module.completed', { userId: randomUUID() }, now.toISOString()))
    await appendEvent(t.tenant, newEvent('course.archived', { courseId: randomUUID(), title: 'Old' }, old))
    const recent = newEvent('course.archived', { courseId: randomUUID(), title: 'New' }, now.toISOString())
    await appendEvent(t.tenant, recent)
    const reader = t.api.withKey(await t.key(['read']))

    // Act
    const listed = await until(
      () => reader.get('/api/v1/events'),
      (r) => r.status === 200 && r.body.data.length > 0 && r.body.meta.total > 0,
    )

    // Assess
    expect(listed.status).toBe(200)
    expect(listed.body.data).toEqual([
      { id: recent.id, event: 'course.archived', createdAt: recent.createdAt, data: recent.data },
    ])
    expect(listed.body.meta.total).toBe(1)
  })

  it('answers 404 for another tenant’s event id, an unknown id and a malformed one', async () => {
    // Prepare
    const t = await newTenant()
    const other = await newTenant()
    expect((await t.api.post('/api/v1/users', userBody())).status).toBe(201)
    const [mine] = (await eventsWhen(t, '', 1)).data

    // Act
    const cross = await other.api.get(`/api/v1/events/${mine?.id}`)
    const unknown = await t.api.get(`/api/v1/events/${randomUUID()}`)
    const malformed = await t.api.get('/api/v1/events/nope')

    // Assess
    expect(cross.status).toBe(404)
    expect(unknown.status).toBe(404)
    expect(malformed.status).toBe(404)
  })

  it('shows no e-mail of an erased learner', async () => {
    // Prepare
    const t = await newTenant()
    const { a, b } = await activity(t)
    await eventsWhen(t, '', 4)
    await t.api.patch(`/api/v1/users/${a.id}`, { is_active: false })
    await eventsWhen(t, '?type=user.deactivated', 1)

    // Act
    const erased = await lms('user', 'erase', '--tenant', t.slug, '--id', a.id)
    const after = await t.api.get('/api/v1/events')

    // Assess
    expect(erased.code).toBe(0)
    const text = JSON.stringify(after.body.data)
    expect(text).not.toContain(a.email)
    expect(text).toContain(b.email)
    const ofA = (after.body.data as Envelope[]).filter(
      (e) => e.event.startsWith('user.') && e.data.userId === a.id,
    )
    expect(ofA.map((e) => e.data.email)).toEqual([
      `erased-${a.id}@erased.invalid`,
      `erased-${a.id}@erased.invalid`,
    ])
  })
})

describe('CLI: lms events list', () => {
  it('prints {data} as the API lists it, filtered by --type', async () => {
    // Prepare
    const t = await newTenant()
    await activity(t)
    const api = await eventsWhen(t, '?type=user.created', 2)

    // Act
    const listed = await lms('events', 'list', '--tenant', t.slug, '--type', 'user.created')
    const bad = await lms('events', 'list', '--tenant', t.slug, '--type', 'nope')

    // Assess
    expect(listed.code).toBe(0)
    expect(listed.json).toEqual({ data: api.data })
    expect(bad.code).not.toBe(0)
  })
})
