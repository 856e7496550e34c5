import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { handler as webhookWorker } from '../../functions/workers/webhook-delivery/handler.ts'
import { config } from '../../shared/config.ts'
import { retryDelay } from '../../shared/domain/webhooks/webhook.ts'
import { newEvent } from '../../shared/domain/events.ts'
import { updateTenant } from '../../shared/services/tenants/tenants-service.ts'
import {
  attemptDelivery,
  createEndpoint,
  deleteEndpoint,
  fanOut,
  listDeliveries,
  listLiveEndpoints,
} from '../../shared/services/deliveries/webhooks-service.ts'
import { getEndpoint } from '../../shared/store/deliveries/webhooks-store.ts'
import { appendEvent } from '../../shared/store/outbox/outbox-store.ts'
import { startReceiver } from '../helpers/receiver.ts'
import { until } from '../helpers/until.ts'
import { newTenant } from '../helpers/tenants.ts'
import { sqsEvent, sqsRecord } from '../helpers/sqs-event.ts'

describe('Webhooks: endpoints and secrets', () => {
  it('stores the secret sealed, and a re-created endpoint gets a new secret', async () => {
    const t = await newTenant()
    const first = await createEndpoint(t.tenant, 'https://127.0.0.1:9/hook', ['user.created'])
    const stored = await getEndpoint(t.tenant, first.endpoint.id)
    expect(first.secret).toMatch(/^whsec_/)
    expect(stored?.sealedSecret).not.toContain(first.secret)
    expect(stored?.sealedSecret.startsWith('v3.')).toBe(true)
    await deleteEndpoint(t.tenant, first.endpoint.id)
    expect((await getEndpoint(t.tenant, first.endpoint.id))?.sealedSecret).toBe('')
    const again = await createEndpoint(t.tenant, 'https://127.0.0.1:9/hook', ['user.created'])
    expect(again.secret).not.toBe(first.secret)
  })

  it('keeps existing endpoints listed and deletable after a downgrade below Growth', async () => {
    const t = await newTenant()
    const { endpoint } = await createEndpoint(t.tenant, 'https://127.0.0.1:9/hook', ['user.created'])
    await updateTenant(t.slug, { plan: 'starter' })
    const starter = { ...t.tenant, plan: 'starter' as const }
    expect((await listLiveEndpoints(starter)).map((e) => e.id)).toEqual([endpoint.id])
    await deleteEndpoint(starter, endpoint.id)
    expect(await listLiveEndpoints(starter)).toEqual([])
  })
})

describe('Webhooks: at-least-once relay and worker', () => {
  it('creates one delivery for an event relayed twice', async () => {
    const t = await newTenant()
    const r = await startReceiver(() => ({ status: 500 }))
    await createEndpoint(t.tenant, `${r.url}/hook`, ['course.published'])
    const event = newEvent('course.published', { courseId: 'c1', title: 'T' }, new Date().toISOString())
    await Promise.all([fanOut(t.tenant, event), fanOut(t.tenant, event)])
    await fanOut(t.tenant, event)
    // The row is written by the worker's first claim (decision 0015): wait for it, then for all
    // five attempts, each one request, whichever of the three messages claimed the first.
    await until(
      () => listDeliveries(t.tenant, {}),
      (rows) => rows.some((d) => d.status === 'failed'),
    )
    const rows = await listDeliveries(t.tenant, {})
    expect(rows).toHaveLength(1)
    expect(rows[0]?.attempts).toBe(5)
    expect(r.requests).toHaveLength(5)
    await r.close()
  })

  it('delivers an event too large for its message once, rebuilt by the worker, byte for byte on a retry and a retry now', async () => {
    // Prepare: the first attempt fails, the second is answered.
    const t = await newTenant()
    const r = await startReceiver((n) => ({ status: n === 1 ? 500 : 200 }))
    await createEndpoint(t.tenant, `${r.url}/hook`, ['course.published'])
    const title = 'x'.repeat(70_000)
    const event = newEvent('course.published', { courseId: randomUUID(), title }, new Date().toISOString())

    // Act: saved as a change saves it (the stack's relay hands it on), and relayed twice more.
    await appendEvent(t.tenant, event)
    await Promise.all([fanOut(t.tenant, event), fanOut(t.tenant, event)])

    // Assess: one delivery in the view, delivered by its second attempt; both requests carried
    // the same bytes, which are the view's payload.
    const view = await until(
      () => t.api.get('/api/v1/webhooks/deliveries'),
      (res) => res.body.data?.[0]?.status === 'delivered',
    )
    expect(view.body.meta.total).toBe(1)
    expect(view.body.data[0]).toMatchObject({ event: 'course.published', attempts: 2, http_status: 200 })
    expect(r.requests).toHaveLength(2)
    const [first, second] = r.requests.map((q) => q.raw)
    expect(first?.length).toBeGreaterThan(64 * 1024)
    expect(second?.equals(first ?? Buffer.alloc(0))).toBe(true)
    expect(view.body.data[0].payload).toBe(first?.toString('utf8'))
    expect(JSON.parse(first?.toString('utf8') ?? '{}')).toMatchObject({
      id: view.body.data[0].id,
      data: { title },
    })

    // Act: retry now, which the worker writes from the original row as well.
    const retried = await t.api.post(`/api/v1/webhooks/deliveries/${view.body.data[0].id}/retry`)

    // Assess: a second row, delivered with the same bytes and envelope id.
    expect(retried.status).toBe(201)
    const both = await until(
      () => t.api.get('/api/v1/webhooks/deliveries'),
      (res) => res.body.meta.total === 2 && res.body.data[0]?.status === 'delivered',
    )
    expect(both.body.data[0]).toMatchObject({ id: retried.body.data.id, retry_of: view.body.data[0].id })
    const third = r.requests[2]
    expect(third?.raw.equals(first ?? Buffer.alloc(0))).toBe(true)
    expect(third?.headers['x-service-delivery']).toBe(r.requests[0]?.headers['x-service-delivery'])
    await r.close()
  })

  it('writes no delivery for a message whose event or original is gone, and reports the message', async () => {
    // Prepare: a message naming an event that was never stored, and a retry of a row never written.
    const t = await newTenant()
    const { endpoint } = await createEndpoint(t.tenant, 'https://127.0.0.1:9/hook', ['course.published'])
    const msg = {
      tenantId: t.tenant.id,
      deliveryId: randomUUID(),
      attempt: 1,
      delivery: {
        endpointId: endpoint.id,
        eventId: randomUUID(),
        event: 'course.published' as const,
        createdAt: new Date().toISOString(),
        eventAt: new Date().toISOString(),
      },
    }

    const retry = {
      ...msg,
      deliveryId: randomUUID(),
      delivery: { createdAt: msg.delivery.createdAt, retryOf: randomUUID() },
    }

    // Act / Assess: each throws (SQS hands it out again, then to the dead-letter queue).
    await expect(attemptDelivery(t.tenant, msg)).rejects.toThrow(/gone/)
    await expect(attemptDelivery(t.tenant, retry)).rejects.toThrow(/gone/)
    expect(await listDeliveries(t.tenant, {})).toEqual([])
  })

  it('reports a message it cannot process as a batch item failure, and only that one', async () => {
    const event = sqsEvent(
      sqsRecord(
        JSON.stringify({ tenantId: '00000000-0000-4000-8000-000000000000', deliveryId: 'x', attempt: 1 }),
        { messageId: 'good', queue: 'lms-webhooks' },
      ),
      sqsRecord('{not json', { messageId: 'bad', queue: 'lms-webhooks' }),
    )
    expect(await webhookWorker(event)).toEqual({ batchItemFailures: [{ itemIdentifier: 'bad' }] })
  })

  it('waits about 30 s, 1, 2 and 4 min between attempts by default, and stops after the fifth', () => {
    const defaults = [30, 60, 120, 240]
    expect([1, 2, 3, 4].map((n) => retryDelay(n, defaults))).toEqual([30, 60, 120, 240])
    expect(retryDelay(5, defaults)).toBeUndefined()
    // The tests run with shortened delays; the deployed default is the spec's.
    expect(config.webhookRetryDelays).toHaveLength(4)
  })
})

describe('Webhooks: redirects', () => {
  it('never follows a redirect: the attempt fails and the redirect target is never called', async () => {
    const target = await startReceiver()
    const t = await newTenant()
    const r = await startReceiver(() => ({ status: 302, redirect: `${target.url}/elsewhere` }))
    await createEndpoint(t.tenant, `${r.url}/hook`, ['user.created'])
    await t.api.post('/api/v1/users', {
      email: 'redirect@example.com',
      first_name: 'R',
      last_name: 'D',
      role: 'learner',
    })
    await r.waitFor(2)
    const [d] = await listDeliveries(t.tenant, {})
    expect(d).toMatchObject({ httpStatus: 302, reason: 'http_302' })
    expect(target.requests).toHaveLength(0)
    await Promise.all([r.close(), target.close()])
  })
})
