import { createHmac, randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { EntitlementError } from '../../shared/domain/errors.ts'
import { updateTenant } from '../../shared/services/tenants/tenants-service.ts'
import {
  attemptDelivery,
  attemptQueuedDelivery,
  createEndpoint,
  deleteEndpoint,
  listDeliveries,
  retryNow,
} from '../../shared/services/deliveries/webhooks-service.ts'
import { CLAIM_LEASE_MS } from '../../shared/domain/attempts.ts'
import { envelopeBody } from '../../shared/domain/webhooks/webhook.ts'
import { listAudit } from '../../shared/store/tenants/audit-store.ts'
import { claimAttemptRow, deliveries, recordAttempt } from '../../shared/store/deliveries/webhooks-store.ts'
import { startReceiver } from '../helpers/receiver.ts'
import { user } from '../helpers/learning.ts'
import { newTenant, userBody, type TestTenant } from '../helpers/tenants.ts'
import { untilAllRelayed } from '../helpers/outbox.ts'
import { until } from '../helpers/until.ts'

/** Five attempts 1 s apart: seconds on an idle machine, minutes on a loaded one (only a hang hits this). */
const FIVE_ATTEMPTS_MS = 240_000

describe('Webhooks: delivery', () => {
  it('posts a signed envelope for a subscribed event, with every header', async () => {
    const t = await newTenant()
    const r = await startReceiver()
    const { endpoint, secret } = await createEndpoint(t.tenant, `${r.url}/hook`, ['user.created'])
    const u = await user(t)
    const [got] = await r.waitFor(1)
    expect(got).toBeDefined()
    if (!got) return
    const body = JSON.parse(got.raw.toString('utf8'))
    expect(got.method).toBe('POST')
    expect(got.url).toBe('/hook')
    expect(got.headers['content-type']).toBe('application/json')
    expect(got.headers['x-service-event']).toBe('user.created')
    expect(got.headers['x-service-delivery']).toBe(body.id)
    expect(body).toMatchObject({
      event: 'user.created',
      data: { userId: u.id, email: u.email, role: 'learner' },
    })
    expect(Date.parse(body.createdAt)).not.toBeNaN()
    const sig = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(got.headers['x-service-signature']))
    expect(sig).not.toBeNull()
    const [, t0, v1] = sig ?? []
    expect(Math.abs(Date.now() / 1000 - Number(t0))).toBeLessThan(300)
    expect(v1).toBe(
      createHmac('sha256', secret)
        .update(`${t0}.${got.raw.toString('utf8')}`)
        .digest('hex'),
    )
    const deliveries = await until(
      () => listDeliveries(t.tenant, {}),
      (d) => d[0]?.status === 'delivered',
    )
    expect(deliveries).toHaveLength(1)
    expect(deliveries[0]).toMatchObject({
      status: 'delivered',
      attempts: 1,
      httpStatus: 200,
      endpointId: endpoint.id,
    })
    expect(deliveries[0]?.payload).toBe(got.raw.toString('utf8'))
  })

  it('retries with a byte-identical body until the receiver succeeds', async () => {
    const t = await newTenant()
    const r = await startReceiver((n) => ({ status: n < 3 ? 500 : 204 }))
    await createEndpoint(t.tenant, `${r.url}/hook`, ['user.created'])
    await user(t)
    const got = await r.waitFor(3)
    expect(got).toHaveLength(3)
    expect(new Set(got.map((g) => g.raw.toString('hex'))).size).toBe(1)
    expect(got[1] && got[0] ? got[1].at - got[0].at : 0).toBeGreaterThanOrEqual(900)
    const [d] = await until(
      () => listDeliveries(t.tenant, {}),
      (d) => d[0]?.status === 'delivered',
    )
    expect(d).toMatchObject({ status: 'delivered', attempts: 3, httpStatus: 204 })
  })

  it('fails after the fifth failed attempt, keeping a truncated response body', async () => {
    const t = await newTenant()
    const r = await startReceiver(() => ({ status: 503, body: 'e'.repeat(10_000) }))
    await createEndpoint(t.tenant, `${r.url}/hook`, ['user.created'])
    await user(t)
    await r.waitFor(5, FIVE_ATTEMPTS_MS)
    const [d] = await until(
      () => listDeliveries(t.tenant, {}),
      (d) => d[0]?.status === 'failed',
    )
    // The stored outcome is the barrier: a failed delivery takes no sixth attempt.
    expect(d).toMatchObject({ status: 'failed', attempts: 5, httpStatus: 503 })
    expect(d?.responseBody).toHaveLength(4096)
    expect(r.requests).toHaveLength(5)
  }, 480_000)

  it('never counts a late 2xx: a receiver slower than the deadline fails', async () => {
    const t = await newTenant()
    const r = await startReceiver((n) => (n === 1 ? { status: 200, delayMs: 2500 } : { status: 200 }))
    await createEndpoint(t.tenant, `${r.url}/hook`, ['user.created'])
    await user(t)
    await r.waitFor(2)
    const [d] = await until(
      () => listDeliveries(t.tenant, {}),
      (d) => d[0]?.status === 'delivered',
    )
    expect(d).toMatchObject({ status: 'delivered', attempts: 2 })
  })

  it('sends nothing for an event the endpoint did not choose, or after the endpoint is deleted', async () => {
    const t = await newTenant()
    const r = await startReceiver()
    const { endpoint } = await createEndpoint(t.tenant, `${r.url}/hook`, ['user.deactivated'])
    await user(t)
    // Relayed while the endpoint is live: it did not choose user.created.
    await untilAllRelayed(t.tenant)
    await deleteEndpoint(t.tenant, endpoint.id)
    const u = await user(t)
    await t.api.delete(`/api/v1/users/${u.id}`)
    // Barrier: every event is relayed, and each says how many deliveries its fan-out queued.
    const relayed = await untilAllRelayed(t.tenant)
    expect(relayed.map((e) => e.event)).toContain('user.deactivated')
    expect(relayed.map((e) => e.deliveries)).toEqual(relayed.map(() => 0))
    expect(await listDeliveries(t.tenant, {})).toHaveLength(0)
    expect(r.requests).toHaveLength(0)
  })

  it('fails at once with endpoint_inactive when the endpoint is deleted between attempts', async () => {
    const t = await newTenant()
    const r = await startReceiver(() => ({ status: 500 }))
    const { endpoint } = await createEndpoint(t.tenant, `${r.url}/hook`, ['user.created'])
    await user(t)
    await r.waitFor(1)
    await deleteEndpoint(t.tenant, endpoint.id)
    const [d] = await until(
      () => listDeliveries(t.tenant, {}),
      (d) => d[0]?.status === 'failed',
    )
    expect(d).toMatchObject({ status: 'failed', reason: 'endpoint_inactive' })
    expect(r.requests).toHaveLength(1)
    await expect(retryNow(t.tenant, d?.id ?? '', 'test')).rejects.toThrow(/deleted/)
  })
})

describe('Webhooks: at-least-once safety', () => {
  it('makes one request per attempt however often each attempt message is handled', async () => {
    const t = await newTenant()
    const r = await startReceiver(() => ({ status: 500 }))
    await createEndpoint(t.tenant, `${r.url}/hook`, ['user.created'])
    await user(t)
    const [d] = await until(
      () => listDeliveries(t.tenant, {}),
      (d) => (d[0]?.attempts ?? 0) >= 1,
    )
    const deliveryId = d?.id ?? ''
    // While the worker retries, every attempt message arrives three more times, copies at once.
    const copies = [1, 2, 3, 4, 5].flatMap((attempt) =>
      [0, 1, 2].map(() => attemptDelivery(t.tenant, { tenantId: t.tenant.id, deliveryId, attempt })),
    )
    await Promise.all(copies)
    const [done] = await until(
      () => listDeliveries(t.tenant, {}),
      (d) => d[0]?.status === 'failed',
      FIVE_ATTEMPTS_MS,
    )

    // Assess: five attempts in all (the retry schedule's four plus the first), one request each;
    // the failed row is the barrier: it takes no further attempt.
    expect(done).toMatchObject({ status: 'failed', attempts: 5 })
    expect(r.requests).toHaveLength(5)
  }, 480_000)
})

describe('Webhooks: a worker that dies mid-attempt', () => {
  /** A delivery row with no queue message behind it, so only this test's calls touch it. */
  async function quietDelivery(t: TestTenant, endpointId: string): Promise<string> {
    const id = randomUUID()
    const at = new Date().toISOString()
    await deliveries.insert(t.tenant, {
      id,
      endpointId,
      eventId: randomUUID(),
      event: 'user.created',
      status: 'pending',
      attempts: 0,
      httpStatus: null,
      responseBody: null,
      reason: null,
      payload: envelopeBody(id, 'user.created', at, {
        userId: randomUUID(),
        email: 'a@example.com',
        role: 'learner',
      }),
      envelopeId: id,
      retryOf: null,
      createdAt: at,
      updatedAt: at,
      attemptRecorded: true,
    })
    return id
  }

  it('lets a redelivered copy take over a claim whose lease ran out, and never a live one', async () => {
    // Prepare: attempt 1 claimed by a worker that then died
    const t = await newTenant()
    const r = await startReceiver()
    const { endpoint } = await createEndpoint(t.tenant, `${r.url}/hook`, ['user.created'])
    const deliveryId = await quietDelivery(t, endpoint.id)
    const claimedAt = Date.now()
    expect(await claimAttemptRow(t.tenant, deliveryId, 1, new Date(claimedAt).toISOString())).toHaveProperty(
      'claimed',
    )
    const msg = { tenantId: t.tenant.id, deliveryId, attempt: 1 }

    // Act
    await attemptDelivery(t.tenant, msg, new Date(claimedAt + CLAIM_LEASE_MS - 1000).toISOString())
    const whileLeased = r.requests.length
    await attemptDelivery(t.tenant, msg, new Date(claimedAt + CLAIM_LEASE_MS + 1000).toISOString())

    // Assess
    expect(whileLeased).toBe(0)
    expect(r.requests).toHaveLength(1)
    const [d] = await listDeliveries(t.tenant, {})
    expect(d).toMatchObject({ id: deliveryId, status: 'delivered', attempts: 1, httpStatus: 200 })
  })

  it('sends to the endpoint its delivery names, whatever endpoint the message names', async () => {
    // Prepare: a delivery for one endpoint, and a message naming another of the tenant's
    const t = await newTenant()
    const right = await startReceiver()
    const wrong = await startReceiver()
    const { endpoint } = await createEndpoint(t.tenant, `${right.url}/hook`, ['user.created'])
    const other = await createEndpoint(t.tenant, `${wrong.url}/hook`, ['user.created'])
    const deliveryId = await quietDelivery(t, endpoint.id)

    // Act
    await attemptQueuedDelivery({
      tenantId: t.tenant.id,
      deliveryId,
      attempt: 1,
      endpointId: other.endpoint.id,
    })

    // Assess
    expect(right.requests).toHaveLength(1)
    expect(wrong.requests).toHaveLength(0)
    const [d] = await listDeliveries(t.tenant, {})
    expect(d).toMatchObject({ id: deliveryId, endpointId: endpoint.id, status: 'delivered', attempts: 1 })
  })

  it('queues the next attempt again when the worker died after recording a failure', async () => {
    // Prepare: attempt 1 made and recorded as a failure, attempt 2 never queued
    const t = await newTenant()
    const r = await startReceiver()
    const { endpoint } = await createEndpoint(t.tenant, `${r.url}/hook`, ['user.created'])
    const deliveryId = await quietDelivery(t, endpoint.id)
    const at = new Date().toISOString()
    await claimAttemptRow(t.tenant, deliveryId, 1, at)
    await recordAttempt(
      t.tenant,
      deliveryId,
      1,
      { status: 'pending', httpStatus: 500, responseBody: '', reason: 'http_500' },
      at,
    )

    // Act: SQS hands attempt 1 out again
    await attemptDelivery(t.tenant, { tenantId: t.tenant.id, deliveryId, attempt: 1 })

    // Assess: the worker makes attempt 2 from the queue; attempt 1 is not repeated
    const [d] = await until(
      () => listDeliveries(t.tenant, {}),
      (d) => d[0]?.status === 'delivered',
    )
    expect(d).toMatchObject({ status: 'delivered', attempts: 2 })
    expect(r.requests).toHaveLength(1)
  })
})

describe('Webhooks: a downgrade stops what is under way', () => {
  it('fails a pending delivery below Growth with entitlement_blocked, and refuses retry now', async () => {
    // Prepare
    const t = await newTenant()
    const r = await startReceiver(() => ({ status: 500 }))
    await createEndpoint(t.tenant, `${r.url}/hook`, ['user.created'])
    await user(t)
    await until(
      () => listDeliveries(t.tenant, {}),
      (d) => (d[0]?.attempts ?? 0) >= 1,
    )

    // Act
    await updateTenant(t.slug, { plan: 'starter' })
    const [d] = await until(
      () => listDeliveries(t.tenant, {}),
      (d) => d[0]?.status === 'failed',
    )

    // Assess
    expect(d).toMatchObject({ status: 'failed', reason: 'entitlement_blocked' })
    expect(r.requests.length).toBeLessThan(5)
    expect(r.requests.length).toBeLessThanOrEqual(d?.attempts ?? 0)
    await expect(retryNow({ ...t.tenant, plan: 'starter' }, d?.id ?? '', 'test')).rejects.toBeInstanceOf(
      EntitlementError,
    )
  })
})

describe('Webhooks: endpoints, entitlement and retry now', () => {
  it('refuses new endpoints below Growth, and dispatches nothing until the upgrade', async () => {
    const starter = await newTenant('starter')
    await expect(
      createEndpoint(starter.tenant, 'https://example.com/hook', ['user.created']),
    ).rejects.toBeInstanceOf(EntitlementError)
    const t = await newTenant()
    const r = await startReceiver()
    await createEndpoint(t.tenant, `${r.url}/hook`, ['user.created'])
    await updateTenant(t.slug, { plan: 'starter' })
    const { createUser: create } = await import('../../shared/services/users/users-service.ts')
    const { operator } = await import('../../shared/domain/actor.ts')
    await create({ ...t.tenant, plan: 'starter' }, { ...userBody(), role: 'learner' }, operator)
    // Barrier: relayed while on starter, and each event says how many deliveries it queued.
    const relayed = await untilAllRelayed(t.tenant)
    expect(relayed.map((e) => e.deliveries)).toEqual(relayed.map(() => 0))
    expect(await listDeliveries(t.tenant, {})).toHaveLength(0)
    expect(r.requests).toHaveLength(0)
    await updateTenant(t.slug, { plan: 'growth' })
    const after = await user(t)
    const deliveries = await until(
      () => listDeliveries(t.tenant, {}),
      (all) => all[0]?.status === 'delivered',
    )
    expect(deliveries).toHaveLength(1)
    expect(deliveries[0]).toMatchObject({ status: 'delivered', attempts: 1 })
    expect(r.requests).toHaveLength(1)
    expect(JSON.parse(r.requests[0]?.raw.toString('utf8') ?? '{}')).toMatchObject({
      data: { userId: after.id },
    })
  })

  it('refuses URLs that are not https or not public', async () => {
    const t = await newTenant()
    for (const url of [
      'http://example.com/hook',
      'https://10.0.0.1/hook',
      'https://metadata.internal/x',
      'ftp://x',
    ]) {
      await expect(createEndpoint(t.tenant, url, ['user.created'])).rejects.toThrow(/url/)
    }
    await expect(createEndpoint(t.tenant, 'https://example.com/hook', ['user.exploded'])).rejects.toThrow(
      /events/,
    )
  })

  it('retry now queues a new delivery with the identical body, leaves the original, and audits it', async () => {
    const t = await newTenant()
    let fail = true
    const r = await startReceiver(() => ({ status: fail ? 500 : 200 }))
    await createEndpoint(t.tenant, `${r.url}/hook`, ['user.created'])
    await user(t)
    const [failed] = await until(
      () => listDeliveries(t.tenant, { status: 'failed' }),
      (d) => d.length === 1,
      FIVE_ATTEMPTS_MS,
    )
    fail = false
    const copy = await retryNow(t.tenant, failed?.id ?? randomUUID(), 'test-admin')
    expect(copy.id).not.toBe(failed?.id)
    expect(copy.payload).toBe(failed?.payload)
    expect(copy.retryOf).toBe(failed?.id)
    const all = await until(
      () => listDeliveries(t.tenant, {}),
      (d) => d.some((x) => x.id === copy.id && x.status === 'delivered'),
    )
    expect(all.find((x) => x.id === failed?.id)).toMatchObject({ status: 'failed', attempts: 5 })
    expect(r.requests.at(-1)?.raw.toString('utf8')).toBe(failed?.payload)
    expect((await listAudit(t.tenant)).map((a) => a.action)).toEqual(['webhook.create', 'webhook.retry'])
  }, 480_000)
})
