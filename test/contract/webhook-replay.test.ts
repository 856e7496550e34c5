/**
 * Webhook replay (api-additions section 4, decision 0048): the subscribed events of a range are
 * delivered again, each as a new delivery carrying its original envelope id and body bytes, through
 * the normal attempts and delivery log; `events` narrows them; both bounds are exclusive; requests
 * that name a bad field, another tenant's endpoint or a paused one are refused.
 */
import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { listDeliveries } from '../../shared/services/deliveries/webhooks-service.ts'
import { listAudit } from '../../shared/store/tenants/audit-store.ts'
import { startReceiver, type Received, type Receiver } from '../helpers/receiver.ts'
import { newTenant, userBody, type TestTenant } from '../helpers/tenants.ts'
import { until } from '../helpers/until.ts'

const ENDPOINTS = '/api/v1/webhooks/endpoints'

interface Sent {
  readonly id: string
  readonly event: string
  readonly createdAt: string
  readonly raw: string
}

const sentOf = (got: Received): Sent => {
  const raw = got.raw.toString('utf8')
  const body = JSON.parse(raw) as { id: string; event: string; createdAt: string }
  return { id: body.id, event: body.event, createdAt: body.createdAt, raw }
}

/**
 * A tenant whose endpoint (subscribed to user.created and user.deactivated) received, in order,
 * `users` user.created events and then one user.deactivated, all delivered: the originals, oldest first.
 */
async function withOriginals(users: number): Promise<{
  t: TestTenant
  r: Receiver
  endpointId: string
  originals: Sent[]
}> {
  const t = await newTenant()
  const r = await startReceiver()
  const made = await t.api.post(ENDPOINTS, {
    url: `${r.url}/hook`,
    events: ['user.created', 'user.deactivated'],
  })
  expect(made.status).toBe(201)
  const ids: string[] = []
  for (let i = 0; i < users; i++) {
    const res = await t.api.post('/api/v1/users', userBody())
    expect(res.status).toBe(201)
    ids.push((res.body.data as { id: string }).id)
  }
  // Also an event the endpoint does not subscribe to, inside every range below: never replayed.
  expect((await t.api.post('/api/v1/courses', { title: 'Not subscribed' })).status).toBe(201)
  expect((await t.api.delete(`/api/v1/users/${ids[0]}`)).status).toBe(204)
  const got = await r.waitFor(users + 1)
  await until(
    () => listDeliveries(t.tenant, { status: 'delivered' }),
    (d) => d.length === users + 1,
  )
  const originals = got.map(sentOf).sort((a, b) => (a.createdAt < b.createdAt ? -1 : 1))
  return { t, r, endpointId: (made.body.data as { id: string }).id, originals }
}

const justBefore = (iso: string) => new Date(Date.parse(iso) - 1).toISOString()
const justAfter = (iso: string) => new Date(Date.parse(iso) + 1).toISOString()

describe('Route: POST /api/v1/webhooks/endpoints/{id}/replay', () => {
  it('delivers each subscribed event of the range again, as a new delivery with the original envelope id and bytes', async () => {
    // Prepare
    const { t, r, endpointId, originals } = await withOriginals(2)
    const first = originals[0] as Sent
    const last = originals[originals.length - 1] as Sent

    // Act
    const res = await t.api.post(`${ENDPOINTS}/${endpointId}/replay`, {
      created_after: justBefore(first.createdAt),
      created_before: justAfter(last.createdAt),
    })
    const replayed = (await r.waitFor(originals.length * 2)).slice(originals.length).map(sentOf)
    const log = await until(
      () => t.api.get('/api/v1/webhooks/deliveries?status=delivered'),
      (l) => (l.body.meta as { total: number }).total === originals.length * 2,
    )

    // Assess
    expect(res.status).toBe(202)
    expect(res.body.data).toEqual({ replay_id: expect.any(String), queued: originals.length })
    const byId = (s: Sent[]) => [...s].sort((a, b) => (a.id < b.id ? -1 : 1))
    // Same envelope ids and the very same bytes as the originals (x-service-delivery names it too).
    expect(byId(replayed)).toEqual(byId(originals))
    const headers = r.requests.slice(originals.length).map((q) => q.headers['x-service-delivery'])
    expect(headers.sort()).toEqual(originals.map((o) => o.id).sort())
    // New rows in the delivery log, one per replayed event, beside the originals' rows.
    const rows = log.body.data as { id: string; event_id: string; payload: string }[]
    expect(new Set(rows.map((d) => d.id)).size).toBe(originals.length * 2)
    const payloads = rows.map((d) => d.payload).sort()
    expect(payloads).toEqual([...originals, ...originals].map((o) => o.raw).sort())
    const audit = await listAudit(t.tenant)
    expect(audit.find((a) => a.action === 'webhook.replay')?.details).toMatchObject({
      endpointId,
      queued: originals.length,
    })
  })

  it('sends an event the endpoint never received (subscribed since) built from the stored event, under the envelope id it would have had', async () => {
    // Prepare
    const { t, originals } = await withOriginals(1)
    const later = await startReceiver()
    const made = await t.api.post(ENDPOINTS, { url: `${later.url}/hook`, events: ['user.created'] })
    const created = originals.find((o) => o.event === 'user.created') as Sent

    // Act
    const res = await t.api.post(`${ENDPOINTS}/${(made.body.data as { id: string }).id}/replay`, {
      created_after: justBefore(created.createdAt),
      created_before: justAfter(created.createdAt),
    })
    const [got] = await later.waitFor(1)

    // Assess
    expect(res.body.data).toMatchObject({ queued: 1 })
    const sent = sentOf(got as Received)
    expect(sent.id).not.toBe(created.id)
    expect(got?.headers['x-service-delivery']).toBe(sent.id)
    expect(JSON.parse(sent.raw)).toEqual({ ...JSON.parse(created.raw), id: sent.id })
  })

  it('takes the events strictly between the bounds, and only those of `events` when given', async () => {
    // Prepare: user.created A, B, C, then user.deactivated (of A).
    const { t, r, endpointId, originals } = await withOriginals(3)
    const [a, b, c, deactivated] = originals as [Sent, Sent, Sent, Sent]
    expect(deactivated.event).toBe('user.deactivated')

    // Act
    const between = await t.api.post(`${ENDPOINTS}/${endpointId}/replay`, {
      created_after: a.createdAt,
      created_before: c.createdAt,
    })
    const onlyDeactivations = await t.api.post(`${ENDPOINTS}/${endpointId}/replay`, {
      created_after: justBefore(a.createdAt),
      created_before: justAfter(deactivated.createdAt),
      events: ['user.deactivated'],
    })
    const empty = await t.api.post(`${ENDPOINTS}/${endpointId}/replay`, {
      created_after: justAfter(deactivated.createdAt),
      created_before: new Date(Date.parse(deactivated.createdAt) + 60_000).toISOString(),
    })
    const replayed = (await r.waitFor(originals.length + 2)).slice(originals.length).map(sentOf)

    // Assess
    expect(between.body.data).toMatchObject({ queued: 1 })
    expect(onlyDeactivations.body.data).toMatchObject({ queued: 1 })
    expect(empty.status).toBe(202)
    expect(empty.body.data).toMatchObject({ queued: 0 })
    expect(replayed.map((s) => s.raw).sort()).toEqual([b.raw, deactivated.raw].sort())
    await until(
      () => listDeliveries(t.tenant, { status: 'delivered' }),
      (d) => d.length === originals.length + 2,
    )
  })

  it('answers 400 naming the field for a bad range or event list, and changes nothing', async () => {
    // Prepare
    const t = await newTenant()
    const made = await t.api.post(ENDPOINTS, { url: 'https://127.0.0.1:9/hook', events: ['user.created'] })
    const path = `${ENDPOINTS}/${(made.body.data as { id: string }).id}/replay`
    const now = Date.now()
    const at = (minutesAgo: number) => new Date(now - minutesAgo * 60_000).toISOString()
    const range = { created_after: at(60), created_before: at(0) }

    // Act
    const answers = {
      created_after: [
        await t.api.post(path, { created_before: at(0) }),
        await t.api.post(path, { ...range, created_after: 'yesterday' }),
        await t.api.post(path, { ...range, created_after: at(0), created_before: at(60) }),
        await t.api.post(path, { ...range, created_after: at(0), created_before: at(0) }),
        await t.api.post(path, { ...range, created_after: at(31 * 24 * 60) }),
      ],
      created_before: [await t.api.post(path, { ...range, created_before: '2026-02-30T00:00:00Z' })],
      events: [
        await t.api.post(path, { ...range, events: ['user.exploded'] }),
        await t.api.post(path, { ...range, events: [] }),
        // The endpoint does not subscribe to it: named, not replayed as nothing.
        await t.api.post(path, { ...range, events: ['user.deactivated'] }),
      ],
      since: [await t.api.post(path, { ...range, since: at(5) })],
    }

    // Assess
    for (const [field, replies] of Object.entries(answers)) {
      for (const res of replies) {
        expect(res.status, `${field}: ${JSON.stringify(res.body)}`).toBe(400)
        expect(res.body.error.message).toContain(field)
      }
    }
    expect((await listAudit(t.tenant)).map((a) => a.action)).not.toContain('webhook.replay')
  })

  it("answers 404 for another tenant's, a deleted or an unknown endpoint, 422 for a paused one, 403 without admin", async () => {
    // Prepare
    const t = await newTenant()
    const other = await newTenant()
    const endpoint = async () => {
      const res = await t.api.post(ENDPOINTS, { url: 'https://127.0.0.1:9/hook', events: ['user.created'] })
      return (res.body.data as { id: string }).id
    }
    const [kept, deleted, paused] = [await endpoint(), await endpoint(), await endpoint()]
    expect((await t.api.delete(`${ENDPOINTS}/${deleted}`)).status).toBe(204)
    expect((await t.api.patch(`${ENDPOINTS}/${paused}`, { is_active: false })).status).toBe(200)
    const range = {
      created_after: new Date(Date.now() - 3_600_000).toISOString(),
      created_before: new Date().toISOString(),
    }
    const writeOnly = t.api.withKey(await t.key(['read', 'write']))

    // Act
    const theirs = await other.api.post(`${ENDPOINTS}/${kept}/replay`, range)
    const gone = await t.api.post(`${ENDPOINTS}/${deleted}/replay`, range)
    const unknown = await t.api.post(`${ENDPOINTS}/${randomUUID()}/replay`, range)
    const inactive = await t.api.post(`${ENDPOINTS}/${paused}/replay`, range)
    const noAdmin = await writeOnly.post(`${ENDPOINTS}/${kept}/replay`, range)
    const mine = await t.api.post(`${ENDPOINTS}/${kept}/replay`, range)

    // Assess
    for (const res of [theirs, gone, unknown]) expect(res.status).toBe(404)
    expect(inactive.status).toBe(422)
    expect(inactive.body.error.message).toMatch(/paused/)
    expect(noAdmin.status).toBe(403)
    expect(noAdmin.body.error.message).toMatch(/admin/)
    expect(mine.status).toBe(202)
    expect(mine.body.data).toMatchObject({ queued: 0 })
  })
})
