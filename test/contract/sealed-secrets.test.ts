/**
 * Sealed secrets are bound to their tenant and record: a sealed value copied onto another
 * tenant's item (by anyone who can write the table, or a bug that mixes items up) must not be used
 * there. The attack copies tenant A's sealed secret onto tenant B's item with the document client.
 */
import { randomUUID } from 'node:crypto'
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb'
import type { SQSEvent, SQSRecord } from 'aws-lambda'
import { describe, expect, it } from 'vitest'
import { handler as webhookWorker } from '../../functions/workers/webhook-delivery/handler.ts'
import type { TenantContext } from '../../shared/domain/tenants/tenant.ts'
import { deliveryIdFor, envelopeBody, signature } from '../../shared/domain/webhooks/webhook.ts'
import { connect, testConnection } from '../../shared/services/deliveries/lrs-connection-service.ts'
import { createEndpoint } from '../../shared/services/deliveries/webhooks-service.ts'
import { doc, tableName } from '../../local/sdk-clients.ts'
import { keys, type Key } from '../../shared/store/core/keys.ts'
import { deliveries } from '../../shared/store/deliveries/webhooks-store.ts'
import { startReceiver, type Received } from '../helpers/receiver.ts'
import { newTenant } from '../helpers/tenants.ts'

/** The attack: the sealed value of one item written over another's, as is. */
async function copySealedSecret(from: Key, to: Key): Promise<void> {
  const source = await doc.send(new GetCommand({ TableName: tableName, Key: from, ConsistentRead: true }))
  await doc.send(
    new UpdateCommand({
      TableName: tableName,
      Key: to,
      UpdateExpression: 'SET sealed_secret = :s',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':s': source.Item?.sealed_secret },
    }),
  )
}

/** A pending delivery of a user.created event to the endpoint, as the relay writes it. */
async function pendingDelivery(tenant: TenantContext, endpointId: string): Promise<string> {
  const eventId = randomUUID()
  const id = deliveryIdFor(eventId, endpointId)
  const at = new Date().toISOString()
  await deliveries.insert(tenant, {
    id,
    endpointId,
    eventId,
    event: 'user.created',
    status: 'pending',
    attempts: 0,
    httpStatus: null,
    responseBody: null,
    reason: null,
    payload: envelopeBody(id, 'user.created', at, {
      userId: randomUUID(),
      email: 'sealed@example.com',
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

const message = (tenantId: string, deliveryId: string): SQSRecord =>
  ({
    messageId: deliveryId,
    receiptHandle: deliveryId,
    body: JSON.stringify({ tenantId, deliveryId, attempt: 1 }),
  }) as SQSRecord

function signedWith(secret: string, req: Received): boolean {
  const header = String(req.headers['x-service-signature'] ?? '')
  const t = Number(/t=(\d+)/.exec(header)?.[1])
  return header === signature(secret, t, req.raw.toString('utf8'))
}

describe('Sealed secrets: bound to their tenant and record', () => {
  it("does not sign tenant B's delivery with tenant A's webhook secret copied onto B's endpoint (sealed secret moved across tenants)", async () => {
    // Prepare
    const a = await newTenant()
    const b = await newTenant()
    const receiver = await startReceiver()
    const ofA = await createEndpoint(a.tenant, 'https://127.0.0.1:9/hook', ['user.created'])
    const forged = await createEndpoint(b.tenant, `${receiver.url}/forged`, ['user.created'])
    const intact = await createEndpoint(b.tenant, `${receiver.url}/intact`, ['user.created'])
    await copySealedSecret(
      keys.webhookEndpoint(a.tenant, ofA.endpoint.id),
      keys.webhookEndpoint(b.tenant, forged.endpoint.id),
    )
    const toForged = await pendingDelivery(b.tenant, forged.endpoint.id)
    const toIntact = await pendingDelivery(b.tenant, intact.endpoint.id)

    // Act: one batch for the webhook worker (no queue message, so no other worker takes these)
    const event: SQSEvent = { Records: [message(b.tenant.id, toForged), message(b.tenant.id, toIntact)] }
    const batch = await webhookWorker(event)
    const views = await Promise.all(
      [toForged, toIntact].map((id) => b.api.get(`/api/v1/webhooks/deliveries/${id}`)),
    )

    // Assess: the batch is over, so every request it made has arrived
    expect(receiver.requests.map((r) => r.url)).toEqual(['/intact'])
    expect(receiver.requests.filter((r) => signedWith(ofA.secret, r))).toEqual([])
    expect(signedWith(intact.secret, receiver.requests[0] as Received)).toBe(true)
    expect(batch).toEqual({ batchItemFailures: [] })
    expect(views.map((v) => v.body.data.status)).toEqual(['pending', 'delivered'])
    expect(views[0]?.body.data).toMatchObject({ attempts: 1, reason: 'secret_unreadable', http_status: null })
  })

  it("does not send tenant A's record-store secret copied onto B's connection to B's store", async () => {
    // Prepare
    const a = await newTenant()
    const b = await newTenant()
    const store = await startReceiver()
    const secretOfA = `lrs-secret-${randomUUID()}`
    await connect(a.tenant, { endpoint: 'https://127.0.0.1:9/xapi', key: 'key-a', secret: secretOfA }, 'test')
    await connect(b.tenant, { endpoint: `${store.url}/xapi`, key: 'key-b', secret: 'secret-of-b' }, 'test')
    await copySealedSecret(keys.lrsConnection(a.tenant), keys.lrsConnection(b.tenant))

    // Act
    const tested = await testConnection(b.tenant)

    // Assess
    expect(tested).toEqual({ ok: false, httpStatus: null, reason: 'secret_unreadable' })
    expect(store.requests).toEqual([])
  })

  it('seals the saved record-store secret again for the new connection when the store moves', async () => {
    // Prepare
    const t = await newTenant()
    const before = await startReceiver()
    const after = await startReceiver()
    const first = await connect(t.tenant, { endpoint: `${before.url}/xapi`, key: 'k', secret: 's' }, 'test')

    // Act: no secret sent, so the saved one is kept
    const moved = await connect(t.tenant, { endpoint: `${after.url}/xapi` }, 'test')
    const tested = await testConnection(t.tenant)

    // Assess
    expect(moved.id).not.toBe(first.id)
    expect(tested).toMatchObject({ ok: true, httpStatus: 200 })
    expect(after.requests[0]?.headers.authorization).toBe(`Basic ${Buffer.from('k:s').toString('base64')}`)
  })
})
