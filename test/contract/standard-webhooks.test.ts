/**
 * Standard Webhooks (api-additions section 5, decision 0045): every delivery carries `webhook-id`,
 * `webhook-timestamp` and `webhook-signature`, and the standardwebhooks library's
 * `new Webhook(secret).verify(body, headers)` accepts it: a first attempt, an automatic retry, a
 * retry-now copy and a replayed event (the same `webhook-id`), and a delivery during a rotation with
 * each secret alone.
 * An endpoint made before `whsec_` secrets keeps its x-service-signature.
 */
import { createHmac, randomBytes } from 'node:crypto'
import { UpdateCommand } from '@aws-sdk/lib-dynamodb'
import { Webhook, WebhookVerificationError } from 'standardwebhooks'
import { describe, expect, it } from 'vitest'
import { seal } from '../../shared/crypto/secret-box.ts'
import { listDeliveries } from '../../shared/services/deliveries/webhooks-service.ts'
import { keys } from '../../shared/store/core/keys.ts'
import { doc, tableName } from '../../local/sdk-clients.ts'
import { lms } from '../helpers/cli.ts'
import { startReceiver, type Received } from '../helpers/receiver.ts'
import { newTenant, userBody, type TestTenant } from '../helpers/tenants.ts'
import { until } from '../helpers/until.ts'

const ENDPOINTS = '/api/v1/webhooks/endpoints'
/** `whsec_` and the base64 of 32 bytes. */
const SECRET_FORM = /^whsec_[A-Za-z0-9+/]{43}=$/

/** A received request's headers as the library takes them (one string each). */
const headersOf = (got: Received): Record<string, string> =>
  Object.fromEntries(Object.entries(got.headers).map(([k, v]) => [k, String(v)]))

/** What the library makes of the delivery with `secret`: the parsed envelope, or it throws. */
const verified = (got: Received, secret: string | Webhook): unknown =>
  (typeof secret === 'string' ? new Webhook(secret) : secret).verify(got.raw.toString('utf8'), headersOf(got))

async function endpointOverApi(t: TestTenant, url: string): Promise<{ id: string; secret: string }> {
  const res = await t.api.post(ENDPOINTS, { url, events: ['user.created'] })
  expect(res.status).toBe(201)
  return res.body.data as { id: string; secret: string }
}

async function newUser(t: TestTenant): Promise<void> {
  expect((await t.api.post('/api/v1/users', userBody())).status).toBe(201)
}

describe('Standard Webhooks: every delivery verifies with the standardwebhooks library', () => {
  it('signs a delivery the library accepts with the endpoint secret, and refuses a tampered body', async () => {
    // Prepare
    const t = await newTenant()
    const r = await startReceiver()
    const made = await endpointOverApi(t, `${r.url}/hook`)
    const another = `whsec_${randomBytes(32).toString('base64')}`

    // Act
    await newUser(t)
    const [got] = await r.waitFor(1)
    if (!got) throw new Error('no delivery')
    const envelope = JSON.parse(got.raw.toString('utf8'))
    const tampered = got.raw.toString('utf8').replace('"user.created"', '"user.deactivated"')

    // Assess
    expect(made.secret).toMatch(SECRET_FORM)
    expect(verified(got, made.secret)).toEqual(envelope)
    expect(got.headers['webhook-id']).toBe(envelope.id)
    expect(got.headers['x-service-signature']).toMatch(new RegExp(`^t=${got.headers['webhook-timestamp']},`))
    expect(() => new Webhook(made.secret).verify(tampered, headersOf(got))).toThrow(WebhookVerificationError)
    expect(() => verified(got, another)).toThrow(WebhookVerificationError)
  })

  it('signs every automatic retry afresh, with the same webhook-id', async () => {
    // Prepare
    const t = await newTenant()
    const r = await startReceiver((n) => ({ status: n === 1 ? 500 : 204 }))
    const made = await endpointOverApi(t, `${r.url}/hook`)

    // Act
    await newUser(t)
    const [first, retry] = await r.waitFor(2)
    if (!first || !retry) throw new Error('no retry')

    // Assess
    expect(verified(first, made.secret)).toEqual(verified(retry, made.secret))
    expect(retry.headers['webhook-id']).toBe(first.headers['webhook-id'])
    expect(Number(retry.headers['webhook-timestamp'])).toBeGreaterThanOrEqual(
      Number(first.headers['webhook-timestamp']),
    )
    const [delivery] = await until(
      () => listDeliveries(t.tenant, {}),
      (d) => d[0]?.status === 'delivered',
    )
    expect(delivery).toMatchObject({ attempts: 2, envelopeId: first.headers['webhook-id'] })
  })

  it('gives a retry-now copy (POST .../deliveries/{id}/retry) the same webhook-id, verified', async () => {
    // Prepare
    const t = await newTenant()
    const r = await startReceiver()
    const made = await endpointOverApi(t, `${r.url}/hook`)
    await newUser(t)
    const [original] = await until(
      () => listDeliveries(t.tenant, {}),
      (d) => d[0]?.status === 'delivered',
    )

    // Act
    const reply = await t.api.post(`/api/v1/webhooks/deliveries/${original?.id}/retry`)
    const [first, again] = await r.waitFor(2)
    if (!first || !again) throw new Error('no retry-now delivery')

    // Assess
    expect(reply.status).toBe(201)
    expect(reply.body.data.id).not.toBe(original?.id)
    expect(again.headers['webhook-id']).toBe(first.headers['webhook-id'])
    expect(verified(again, made.secret)).toEqual(verified(first, made.secret))
  })

  it('signs a replayed event (POST .../endpoints/{id}/replay) afresh, with its original webhook-id, verified', async () => {
    // Prepare
    const t = await newTenant()
    const r = await startReceiver()
    const made = await endpointOverApi(t, `${r.url}/hook`)
    await newUser(t)
    const [original] = await r.waitFor(1)
    if (!original) throw new Error('no delivery')
    const createdAt = Date.parse(JSON.parse(original.raw.toString('utf8')).createdAt as string)

    // Act
    const reply = await t.api.post(`${ENDPOINTS}/${made.id}/replay`, {
      created_after: new Date(createdAt - 1).toISOString(),
      created_before: new Date(createdAt + 1).toISOString(),
    })
    const [, replayed] = await r.waitFor(2)
    if (!replayed) throw new Error('no replayed delivery')

    // Assess
    expect(reply.status).toBe(202)
    expect(replayed.headers['webhook-id']).toBe(original.headers['webhook-id'])
    expect(verified(replayed, made.secret)).toEqual(verified(original, made.secret))
  })

  it('signs with both secrets during a rotation, each verifying alone; the CLI makes whsec_ secrets too', async () => {
    // Prepare
    const t = await newTenant()
    const r = await startReceiver()
    const made = await endpointOverApi(t, `${r.url}/hook`)

    // Act
    const rotated = await t.api.post(`${ENDPOINTS}/${made.id}/rotate-secret`, {})
    const current = rotated.body.data.secret as string
    await newUser(t)
    const [during] = await r.waitFor(1)
    if (!during) throw new Error('no delivery')
    const cli = await lms(
      'webhook',
      'create',
      '--tenant',
      t.slug,
      '--url',
      'https://127.0.0.1:9/cli',
      '--events',
      'user.created',
    )

    // Assess
    expect(rotated.status).toBe(200)
    expect(current).toMatch(SECRET_FORM)
    expect(cli.code).toBe(0)
    expect(cli.json.secret).toMatch(SECRET_FORM)
    expect(String(during.headers['webhook-signature']).split(' ')).toHaveLength(2)
    expect(verified(during, current)).toMatchObject({ event: 'user.created' })
    expect(verified(during, made.secret)).toMatchObject({ event: 'user.created' })
  })

  it('keeps the x-service-signature of a secret made before whsec_ secrets took base64, and signs its webhook-signature with the bytes it encodes', async () => {
    // Prepare: an endpoint whose secret has the earlier form (`whsec_` and base64url of 24 bytes)
    const t = await newTenant()
    const r = await startReceiver()
    const made = await endpointOverApi(t, `${r.url}/hook`)
    const bytes = randomBytes(24)
    const earlier = `whsec_${bytes.toString('base64url')}`
    const sealed = await seal(earlier, {
      purpose: 'webhook-signing-secret',
      tenantId: t.tenant.id,
      recordId: made.id,
    })
    await doc.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.webhookEndpoint(t.tenant, made.id),
        UpdateExpression: 'SET sealed_secret = :s',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':s': sealed },
      }),
    )

    // Act
    await newUser(t)
    const [got] = await r.waitFor(1)
    if (!got) throw new Error('no delivery')

    // Assess
    const t0 = got.headers['webhook-timestamp']
    const hex = createHmac('sha256', earlier)
      .update(`${t0}.${got.raw.toString('utf8')}`)
      .digest('hex')
    expect(got.headers['x-service-signature']).toBe(`t=${t0},v1=${hex}`)
    expect(verified(got, new Webhook(bytes, { format: 'raw' }))).toMatchObject({ event: 'user.created' })
    expect(verified(got, `whsec_${bytes.toString('base64')}`)).toMatchObject({ event: 'user.created' })
  })
})
