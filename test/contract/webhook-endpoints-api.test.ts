/**
 * Webhook endpoints over the API (api-additions section 4): admin scope, the secret shown once,
 * the same endpoints as the CLI's, rotation with both secrets signing until the previous expires,
 * deactivation and deletion stopping delivery, and rejected requests changing nothing.
 */
import { createHmac, randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { listDeliveries } from '../../shared/services/deliveries/webhooks-service.ts'
import { listAudit } from '../../shared/store/tenants/audit-store.ts'
import { lms } from '../helpers/cli.ts'
import { untilAllRelayed } from '../helpers/outbox.ts'
import { startReceiver, type Received } from '../helpers/receiver.ts'
import { newTenant, userBody, type TestTenant } from '../helpers/tenants.ts'
import { until } from '../helpers/until.ts'

const ENDPOINTS = '/api/v1/webhooks/endpoints'

/** The `v1=` entries of a delivery's x-service-signature, and whether each verifies with `secret`. */
function signedBy(got: Received, secret: string): { entries: number; verifies: boolean } {
  const header = String(got.headers['x-service-signature'])
  const t = /^t=(\d+),/.exec(header)?.[1]
  const entries = [...header.matchAll(/v1=([0-9a-f]{64})/g)].map((m) => m[1])
  const expected = createHmac('sha256', secret)
    .update(`${t}.${got.raw.toString('utf8')}`)
    .digest('hex')
  return { entries: entries.length, verifies: entries.includes(expected) }
}

async function createdOverApi(t: TestTenant, url: string, events = ['user.created']) {
  const res = await t.api.post(ENDPOINTS, { url, events, description: 'CRM sync' })
  expect(res.status).toBe(201)
  return res.body.data as { id: string; secret: string }
}

/** Creates a user and waits for the receiver's `n`th request: that user's delivery. */
async function deliveryOf(t: TestTenant, r: { waitFor(n: number): Promise<Received[]> }, n: number) {
  expect((await t.api.post('/api/v1/users', userBody())).status).toBe(201)
  const got = await r.waitFor(n)
  return got[n - 1] as Received
}

describe('Route: POST /api/v1/webhooks/endpoints', () => {
  it('creates an endpoint whose secret is shown once and signs its deliveries; audited without the secret', async () => {
    // Prepare
    const t = await newTenant()
    const r = await startReceiver()

    // Act
    const res = await t.api.post(ENDPOINTS, { url: `${r.url}/hook`, events: ['user.created'] })
    const made = res.body.data as { id: string; secret: string }
    const got = await deliveryOf(t, r, 1)
    const one = await t.api.get(`${ENDPOINTS}/${made.id}`)
    const list = await t.api.get(ENDPOINTS)

    // Assess
    expect(res.status).toBe(201)
    expect(res.body.data).toMatchObject({
      url: `${r.url}/hook`,
      events: ['user.created'],
      description: null,
      is_active: true,
      secret_rotated_at: null,
    })
    expect(made.secret).toMatch(/^whsec_/)
    expect(signedBy(got, made.secret)).toEqual({ entries: 1, verifies: true })
    expect(one.status).toBe(200)
    expect(one.body.data).toEqual({ ...res.body.data, secret: undefined })
    expect(list.body).toMatchObject({ data: [{ id: made.id }], meta: { page: 1, total: 1 } })
    for (const answer of [one, list]) expect(JSON.stringify(answer.body)).not.toMatch(/secret"|whsec_/)
    const audit = await listAudit(t.tenant)
    expect(audit.map((a) => a.action)).toContain('webhook.create')
    expect(JSON.stringify(audit)).not.toContain(made.secret)
  })

  it('lists an endpoint made with the CLI, and the CLI lists one made over the API', async () => {
    // Prepare
    const t = await newTenant()
    const viaApi = await createdOverApi(t, 'https://127.0.0.1:9/api')

    // Act
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
    const listed = await t.api.get(ENDPOINTS)
    const cliList = await lms('webhook', 'list', '--tenant', t.slug)

    // Assess
    expect(cli.code).toBe(0)
    expect((listed.body.data as { id: string }[]).map((e) => e.id).sort()).toEqual(
      [viaApi.id, cli.json.id].sort(),
    )
    expect((cliList.json.data as { id: string }[]).map((e) => e.id)).toContain(viaApi.id)
  })

  it('answers 400 naming the field, and a refused request creates nothing', async () => {
    // Prepare
    const t = await newTenant()
    const ok = { url: 'https://127.0.0.1:9/hook', events: ['user.created'] }

    // Act
    const answers = await Promise.all([
      t.api.post(ENDPOINTS, { events: ['user.created'] }),
      t.api.post(ENDPOINTS, { ...ok, url: 'http://example.com/hook' }),
      t.api.post(ENDPOINTS, { ...ok, url: 'https://10.0.0.1/hook' }),
      t.api.post(ENDPOINTS, { ...ok, events: [] }),
      t.api.post(ENDPOINTS, { ...ok, events: ['user.exploded'] }),
      t.api.post(ENDPOINTS, { ...ok, secret: 'mine' }),
    ])
    const listed = await t.api.get(ENDPOINTS)

    // Assess
    expect(answers.map((a) => a.status)).toEqual([400, 400, 400, 400, 400, 400])
    expect(answers.map((a) => String(a.body.error.message).split(/[ :]/)[0])).toEqual([
      'url',
      'url',
      'url',
      'events',
      'events[0]',
      'secret',
    ])
    expect(listed.body.meta.total).toBe(0)
  })
})

describe('Routes: webhook endpoints, scopes and tenants', () => {
  it('refuses a key without the admin scope (403) and another tenant’s id (404), changing nothing', async () => {
    // Prepare
    const t = await newTenant()
    const other = await newTenant()
    const made = await createdOverApi(t, 'https://127.0.0.1:9/hook')
    const readWrite = t.api.withKey(await t.key(['read', 'write']))
    const path = `${ENDPOINTS}/${made.id}`

    // Act
    const scoped = await Promise.all([
      readWrite.get(ENDPOINTS),
      readWrite.post(ENDPOINTS, { url: 'https://127.0.0.1:9/x', events: ['user.created'] }),
      readWrite.get(path),
      readWrite.patch(path, { is_active: false }),
      readWrite.delete(path),
      readWrite.post(`${path}/rotate-secret`, {}),
    ])
    const foreign = await Promise.all([
      other.api.get(path),
      other.api.patch(path, { description: 'mine now' }),
      other.api.delete(path),
      other.api.post(`${path}/rotate-secret`, {}),
      t.api.get(`${ENDPOINTS}/not-a-uuid`),
      t.api.get(`${ENDPOINTS}/${randomUUID()}`),
    ])
    const after = await t.api.get(path)

    // Assess
    expect(scoped.map((a) => a.status)).toEqual([403, 403, 403, 403, 403, 403])
    expect(foreign.map((a) => a.status)).toEqual([404, 404, 404, 404, 404, 404])
    expect(after.body.data).toMatchObject({
      is_active: true,
      description: 'CRM sync',
      secret_rotated_at: null,
    })
  })
})

describe('Route: PATCH /api/v1/webhooks/endpoints/{id}', () => {
  it('changes url, events and description; is_active false stops delivery to it', async () => {
    // Prepare
    const t = await newTenant()
    const paused = await startReceiver()
    const live = await startReceiver()
    const p = await createdOverApi(t, 'https://127.0.0.1:9/old', ['user.deactivated'])
    const l = await createdOverApi(t, `${live.url}/hook`)

    // Act
    const changed = await t.api.patch(`${ENDPOINTS}/${p.id}`, {
      url: `${paused.url}/hook`,
      events: ['user.created'],
      description: null,
    })
    const off = await t.api.patch(`${ENDPOINTS}/${p.id}`, { is_active: false })
    await deliveryOf(t, live, 1)
    // Barrier: the event is relayed, so every delivery it will ever make is queued and delivered.
    await untilAllRelayed(t.tenant)
    const deliveries = await until(
      () => listDeliveries(t.tenant, {}),
      (d) => d.every((x) => x.status !== 'pending'),
    )

    // Assess
    expect(changed.status).toBe(200)
    expect(changed.body.data).toMatchObject({
      url: `${paused.url}/hook`,
      events: ['user.created'],
      description: null,
    })
    expect(off.body.data).toMatchObject({ is_active: false })
    expect(deliveries.map((d) => d.endpointId)).toEqual([l.id])
    expect(paused.requests).toHaveLength(0)
    expect((await listAudit(t.tenant)).filter((a) => a.action === 'webhook.update')).toHaveLength(2)
  })

  it('answers 400 naming the field and leaves the endpoint as it was', async () => {
    // Prepare
    const t = await newTenant()
    const made = await createdOverApi(t, 'https://127.0.0.1:9/hook')
    const path = `${ENDPOINTS}/${made.id}`

    // Act
    const answers = await Promise.all([
      t.api.patch(path, { is_active: 'no' }),
      t.api.patch(path, { url: 'http://example.com/x' }),
      t.api.patch(path, { events: [] }),
      t.api.patch(path, { colour: 'blue' }),
      t.api.patch(path, []),
    ])
    const after = await t.api.get(path)

    // Assess
    expect(answers.map((a) => a.status)).toEqual([400, 400, 400, 400, 400])
    expect(answers.map((a) => String(a.body.error.message).split(/[ :]/)[0])).toEqual([
      'is_active',
      'url',
      'events',
      'colour',
      'The',
    ])
    expect(after.body.data).toMatchObject({
      url: 'https://127.0.0.1:9/hook',
      events: ['user.created'],
      is_active: true,
      description: 'CRM sync',
    })
  })
})

describe('Route: DELETE /api/v1/webhooks/endpoints/{id}', () => {
  it('stops delivery: 204, gone from the API, and its pending delivery fails as endpoint_inactive', async () => {
    // Prepare: the receiver refuses, so the delivery waits for its next attempt.
    const t = await newTenant()
    const r = await startReceiver(() => ({ status: 500 }))
    const made = await createdOverApi(t, `${r.url}/hook`)
    await deliveryOf(t, r, 1)
    await until(
      () => listDeliveries(t.tenant, {}),
      (d) => d[0]?.attempts === 1 && d[0].httpStatus === 500,
    )

    // Act
    const deleted = await t.api.delete(`${ENDPOINTS}/${made.id}`)
    const again = await t.api.delete(`${ENDPOINTS}/${made.id}`)
    const get = await t.api.get(`${ENDPOINTS}/${made.id}`)
    const listed = await t.api.get(ENDPOINTS)
    const [delivery] = await until(
      () => listDeliveries(t.tenant, {}),
      (d) => d[0]?.status === 'failed',
    )

    // Assess
    expect(deleted.status).toBe(204)
    expect(again.status).toBe(404)
    expect(get.status).toBe(404)
    expect(listed.body.meta.total).toBe(0)
    // Failed at once by the delete, or by its next attempt if that was already under way (retries
    // are 1 s apart here): either way before its attempts ran out.
    expect(delivery).toMatchObject({ status: 'failed', reason: 'endpoint_inactive' })
    expect(r.requests.length).toBeLessThan(5)
    expect((await listAudit(t.tenant)).map((a) => a.action)).toContain('webhook.delete')
  })
})

describe('Route: POST /api/v1/webhooks/endpoints/{id}/rotate-secret', () => {
  it('signs with both secrets until the previous one expires, then with the new one only', async () => {
    // Prepare
    const t = await newTenant()
    const r = await startReceiver()
    const made = await createdOverApi(t, `${r.url}/hook`)

    // Act
    const rotated = await t.api.post(`${ENDPOINTS}/${made.id}/rotate-secret`)
    const second = rotated.body.data.secret as string
    const during = await deliveryOf(t, r, 1)
    const expired = await t.api.post(`${ENDPOINTS}/${made.id}/rotate-secret`, {
      expire_previous_in_seconds: 0,
    })
    const third = expired.body.data.secret as string
    const after = await deliveryOf(t, r, 2)
    const get = await t.api.get(`${ENDPOINTS}/${made.id}`)

    // Assess
    expect(rotated.status).toBe(200)
    expect(rotated.body.data).toMatchObject({ id: made.id, is_active: true })
    expect(Date.parse(rotated.body.data.secret_rotated_at)).not.toBeNaN()
    expect(new Set([made.secret, second, third]).size).toBe(3)
    expect(signedBy(during, second)).toEqual({ entries: 2, verifies: true })
    expect(signedBy(during, made.secret)).toEqual({ entries: 2, verifies: true })
    expect(signedBy(after, third)).toEqual({ entries: 1, verifies: true })
    expect(signedBy(after, second).verifies).toBe(false)
    expect(JSON.stringify(get.body)).not.toMatch(/whsec_/)
    const audit = await listAudit(t.tenant)
    expect(audit.filter((a) => a.action === 'webhook.rotate_secret')).toHaveLength(2)
    for (const secret of [made.secret, second, third]) expect(JSON.stringify(audit)).not.toContain(secret)
  })

  it('answers 400 naming expire_previous_in_seconds outside 0..86400, keeping the secret', async () => {
    // Prepare
    const t = await newTenant()
    const r = await startReceiver()
    const made = await createdOverApi(t, `${r.url}/hook`)
    const path = `${ENDPOINTS}/${made.id}/rotate-secret`

    // Act
    const answers = await Promise.all([
      t.api.post(path, { expire_previous_in_seconds: 86_401 }),
      t.api.post(path, { expire_previous_in_seconds: -1 }),
      t.api.post(path, { expire_previous_in_seconds: 1.5 }),
      t.api.post(path, { expire_in: 10 }),
    ])
    const got = await deliveryOf(t, r, 1)

    // Assess
    expect(answers.map((a) => a.status)).toEqual([400, 400, 400, 400])
    expect(answers.map((a) => String(a.body.error.message).split(/[ :]/)[0])).toEqual([
      'expire_previous_in_seconds',
      'expire_previous_in_seconds',
      'expire_previous_in_seconds',
      'expire_in',
    ])
    expect(signedBy(got, made.secret)).toEqual({ entries: 1, verifies: true })
  })
})
