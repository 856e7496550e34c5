/** `lms webhook ...`: endpoints, the deliveries view and retry now. */
import type { WebhookDelivery, WebhookEndpoint } from '../shared/domain/webhooks/webhook.ts'
import { deliveryStatuses, type DeliveryStatus } from '../shared/domain/webhooks/webhook.ts'
import * as webhooks from '../shared/services/webhooks-service.ts'
import { required, UsageError } from './args.ts'
import { tenantOf, type Command } from './flags.ts'

function endpointView(e: WebhookEndpoint) {
  return { id: e.id, url: e.url, events: e.events, created_at: e.createdAt }
}

function deliveryView(d: WebhookDelivery) {
  return {
    id: d.id,
    endpoint_id: d.endpointId,
    event: d.event,
    event_id: d.eventId,
    status: d.status,
    http_status: d.httpStatus,
    attempts: d.attempts,
    reason: d.reason,
    response_body: d.responseBody,
    payload: d.payload,
    retry_of: d.retryOf,
    created_at: d.createdAt,
    updated_at: d.updatedAt,
  }
}

export const webhookCommands: Record<string, Command> = {
  'webhook create': async (f) => {
    const events = required(f, 'events')
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean)
    const { endpoint, secret } = await webhooks.createEndpoint(await tenantOf(f), required(f, 'url'), events)
    return { ...endpointView(endpoint), secret }
  },
  'webhook list': async (f) => ({
    data: (await webhooks.listLiveEndpoints(await tenantOf(f))).map(endpointView),
  }),
  'webhook delete': async (f) => {
    const id = required(f, 'id')
    return { id, deleted_at: await webhooks.deleteEndpoint(await tenantOf(f), id) }
  },
  'webhook deliveries': async (f) => {
    const status = f.get('status')
    if (status !== undefined && !(deliveryStatuses as readonly string[]).includes(status)) {
      throw new UsageError(`--status takes ${deliveryStatuses.join(', ')}`)
    }
    const list = await webhooks.listDeliveries(await tenantOf(f), {
      status: status as DeliveryStatus | undefined,
      event: f.get('event'),
    })
    return { data: list.map(deliveryView) }
  },
  'webhook retry': async (f) =>
    deliveryView(await webhooks.retryNow(await tenantOf(f), required(f, 'delivery'), 'operator-cli')),
}
