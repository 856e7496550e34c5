/**
 * The deliveries view and retry-now over the API (an addition to the spec): admin scope, filters
 * and paging, the exact payload, and a retry that sends the identical body again.
 */
import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { SendMessageCommand } from '@aws-sdk/client-sqs'
import { mockClient } from 'aws-sdk-client-mock'
import { sqs } from '../../shared/aws/sqs.ts'
import {
  createEndpoint,
  deleteEndpoint,
  listDeliveries,
  retryNow,
} from '../../shared/services/deliveries/webhooks-service.ts'
import { listAudit } from '../../shared/store/tenants/audit-store.ts'
import { startReceiver, type Receiver } from '../helpers/receiver.ts'
import { newTenant, userBody, type TestTenant } from '../helpers/tenants.ts'
import { until } from '../helpers/until.ts'

/** A tenant whose endpoint has received `n` user.created deliveries (all delivered). */
async function withDeliveries(n: number): Promise<{ t: TestTenant; r: Receiver; endpointId: string }> {
  const t = await newTenant()
  const r = await startReceiver()
  const { endpoint } = await createEndpoint(t.tenant, `${r.url}/hook`, ['user.created', 'user.deactivated'])
  for (let i = 0; i < n; i++) expect((await t.api.post('/api/v1/users', userBody())).status).toBe(201)
  await r.waitFor(n)
  await until(
    () => listDeliveries(t.tenant, { status: 'delivered' }),
    (d) => d.length === n,
  )
  return { t, r, endpointId: endpoint.id }
}

describe('Route: GET /api/v1/webhooks/deliveries', () => {
  it('lists deliveries newest first with filters, paging and meta, each with the exact payload sent', async () => {
    // Prepare
    const { t, r } = await withDeliveries(3)

    // Act
    const page1 = await t.api.get('/api/v1/webhooks/deliveries?per_page=2')
    const page2 = await t.api.get('/api/v1/webhooks/deliveries?per_page=2&page=2')
    const failed = await t.api.get('/api/v1/webhooks/deliveries?status=failed')
    const byEvent = await t.api.get('/api/v1/webhooks/deliveries?event=user.deactivated')

    // Assess
    expect(page1.status).toBe(200)
    expect(page1.body.meta).toEqual({ page: 1, per_page: 2, total: 3 })
    expect(page2.body.data).toHaveLength(1)
    const all = [...page1.body.data, ...page2.body.data] as { created_at: string; payload: string }[]
    expect(all.map((d) => d.created_at)).toEqual(
      all
        .map((d) => d.created_at)
        .sort()
        .reverse(),
    )
    expect(all[0]).toMatchObject({
      event: 'user.created',
      status: 'delivered',
      http_status: 200,
      attempts: 1,
    })
    // Distinct bodies: on a busy machine an attempt can time out and be sent again, byte-identical.
    const sentBodies = [...new Set(r.requests.map((q) => q.raw.toString('utf8')))].sort()
    expect(all.map((d) => d.payload).sort()).toEqual(sentBodies)
    expect(failed.body).toMatchObject({ data: [], meta: { total: 0 } })
    expect(byEvent.body.meta.total).toBe(0)
  })

  it('answers 400 naming the filter, and 403 naming the admin scope to a key without it', async () => {
    // Prepare
    const t = await newTenant()
    const readWrite = t.api.withKey(await t.key(['read', 'write']))

    // Act
    const badStatus = await t.api.get('/api/v1/webhooks/deliveries?status=lost')
    const badEvent = await t.api.get('/api/v1/webhooks/deliveries?event=user.exploded')
    const noAdmin = await readWrite.get('/api/v1/webhooks/deliveries')

    // Assess
    expect(badStatus.status).toBe(400)
    expect(badStatus.body.error.message).toMatch(/^status/)
    expect(badEvent.status).toBe(400)
    expect(badEvent.body.error.message).toMatch(/^event/)
    expect(noAdmin.status).toBe(403)
    expect(noAdmin.body.error.message).toMatch(/admin/)
  })
})

describe('Route: GET /api/v1/webhooks/deliveries/{id}', () => {
  it("returns one delivery; another tenant's, an unknown or a malformed id is 404", async () => {
    // Prepare
    const { t } = await withDeliveries(1)
    const other = await newTenant()
    const [d] = await listDeliveries(t.tenant, {})

    // Act
    const mine = await t.api.get(`/api/v1/webhooks/deliveries/${d?.id}`)
    const theirs = await other.api.get(`/api/v1/webhooks/deliveries/${d?.id}`)
    const unknown = await t.api.get(`/api/v1/webhooks/deliveries/${randomUUID()}`)
    const malformed = await t.api.get('/api/v1/webhooks/deliveries/not-an-id')

    // Assess
    expect(mine.status).toBe(200)
    expect(mine.body.data).toMatchObject({ id: d?.id, payload: d?.payload, event: 'user.created' })
    for (const reply of [theirs, unknown, malformed]) expect(reply.status).toBe(404)
  })
})

describe('Route: POST /api/v1/webhooks/deliveries/{id}/retry', () => {
  it('queues a copy that sends the identical body again, leaves the original, and audits the key', async () => {
    // Prepare
    const { t, r } = await withDeliveries(1)
    const [original] = await listDeliveries(t.tenant, {})

    // Act
    const reply = await t.api.post(`/api/v1/webhooks/deliveries/${original?.id}/retry`)
    const [first, again] = await r.waitFor(2)

    // Assess
    expect(reply.status).toBe(201)
    expect(reply.body.data).toMatchObject({ retry_of: original?.id, status: 'pending', attempts: 0 })
    expect(again?.raw.equals(first?.raw ?? Buffer.alloc(0))).toBe(true)
    expect(again?.headers['x-service-delivery']).toBe(first?.headers['x-service-delivery'])
    const still = await t.api.get(`/api/v1/webhooks/deliveries/${original?.id}`)
    expect(still.body.data).toMatchObject({ status: 'delivered', attempts: 1 })
    const audit = (await listAudit(t.tenant)).find((a) => a.action === 'webhook.retry')
    expect(audit?.actor).toMatch(/^api:[0-9a-f-]{36}$/)
  })

  it('answers 422 when the endpoint was deleted, and queues nothing', async () => {
    // Prepare
    const { t, r, endpointId } = await withDeliveries(1)
    const [original] = await listDeliveries(t.tenant, {})
    await deleteEndpoint(t.tenant, endpointId)

    // Act
    const reply = await t.api.post(`/api/v1/webhooks/deliveries/${original?.id}/retry`)

    // Assess
    expect(reply.status).toBe(422)
    expect(await listDeliveries(t.tenant, {})).toHaveLength(1)
    expect(r.requests).toHaveLength(1)
  })

  it('leaves no copy when its attempt cannot be queued, so no delivery is left pending for good', async () => {
    // Prepare
    const { t } = await withDeliveries(1)
    const [original] = await listDeliveries(t.tenant, {})
    const queue = mockClient(sqs)
    queue.on(SendMessageCommand).rejects(new Error('queue unavailable'))

    // Act
    const retried = retryNow(t.tenant, original?.id ?? '', 'test')

    // Assess
    try {
      await expect(retried).rejects.toThrow(/queue unavailable/)
    } finally {
      queue.restore()
    }
    expect((await listDeliveries(t.tenant, {})).map((d) => d.id)).toEqual([original?.id])
    expect((await listAudit(t.tenant)).filter((a) => a.action === 'webhook.retry')).toHaveLength(0)
  })
})
