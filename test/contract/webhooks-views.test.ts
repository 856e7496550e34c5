/**
 * Webhooks as the operator and the receiver see them: the deliveries view filtered by event (the
 * service and `lms webhook deliveries`), and the exact data of the user lifecycle events.
 */
import { describe, expect, it } from 'vitest'
import type { WebhookDelivery } from '../../shared/domain/webhooks/webhook.ts'
import { createEndpoint, listDeliveries } from '../../shared/services/deliveries/webhooks-service.ts'
import { lms } from '../helpers/cli.ts'
import { startReceiver, type Received } from '../helpers/receiver.ts'
import { user } from '../helpers/learning.ts'
import { newTenant, type TestTenant } from '../helpers/tenants.ts'
import { until } from '../helpers/until.ts'

function deliveredOf(t: TestTenant, n: number): Promise<WebhookDelivery[]> {
  return until(
    () => listDeliveries(t.tenant, {}),
    (d) => d.length === n && d.every((x) => x.status === 'delivered'),
  )
}

/** The POST the receiver got for `event`, its body parsed. */
function postOf(requests: readonly Received[], event: string) {
  const req = requests.find((r) => r.headers['x-service-event'] === event)
  return req ? { req, body: JSON.parse(req.raw.toString('utf8')) as Record<string, unknown> } : undefined
}

describe('Webhooks: the deliveries view', () => {
  it('filters deliveries by event, in the service and in the CLI', async () => {
    // Prepare
    const t = await newTenant()
    const r = await startReceiver()
    await createEndpoint(t.tenant, `${r.url}/hook`, ['user.created', 'user.deactivated'])
    const u = await user(t)
    expect((await t.api.delete(`/api/v1/users/${u.id}`)).status).toBe(204)
    const all = await deliveredOf(t, 2)
    expect(all.map((d) => d.event).sort()).toEqual(['user.created', 'user.deactivated'])

    // Act
    const deactivated = await listDeliveries(t.tenant, { event: 'user.deactivated' })
    const created = await listDeliveries(t.tenant, { event: 'user.created' })
    const cli = await lms('webhook', 'deliveries', '--tenant', t.slug, '--event', 'user.deactivated')

    // Assess
    expect(deactivated).toHaveLength(1)
    expect(deactivated[0]).toMatchObject({ event: 'user.deactivated', status: 'delivered' })
    expect(created).toHaveLength(1)
    expect(created[0]).toMatchObject({ event: 'user.created', status: 'delivered' })
    expect(created[0]?.id).not.toBe(deactivated[0]?.id)
    expect(cli.code).toBe(0)
    expect(cli.json.data).toHaveLength(1)
    expect(cli.json.data[0]).toMatchObject({
      id: deactivated[0]?.id,
      event: 'user.deactivated',
      status: 'delivered',
    })
  })
})

describe('Webhooks: user lifecycle events', () => {
  it('sends user.deactivated and user.reactivated carrying exactly the user id and e-mail', async () => {
    // Prepare
    const t = await newTenant()
    const r = await startReceiver()
    await createEndpoint(t.tenant, `${r.url}/hook`, ['user.deactivated', 'user.reactivated'])
    const u = await user(t)

    // Act
    expect((await t.api.delete(`/api/v1/users/${u.id}`)).status).toBe(204)
    const patched = await t.api.patch(`/api/v1/users/${u.id}`, { is_active: true })
    await deliveredOf(t, 2)

    // Assess
    expect(patched.status).toBe(200)
    const deactivated = postOf(r.requests, 'user.deactivated')
    const reactivated = postOf(r.requests, 'user.reactivated')
    expect(deactivated?.req.method).toBe('POST')
    expect(deactivated?.body.event).toBe('user.deactivated')
    expect(deactivated?.body.data).toEqual({ userId: u.id, email: u.email })
    expect(reactivated?.req.method).toBe('POST')
    expect(reactivated?.body.event).toBe('user.reactivated')
    expect(reactivated?.body.data).toEqual({ userId: u.id, email: u.email })
  })
})
