/**
 * Webhook replay (decision 0048). The route checks the request, counts what the range holds and
 * queues the replay's first page; the replay worker turns each page into new deliveries on the
 * webhooks queue (the normal attempts, retries and delivery log) and queues the next page after a
 * delay. At most one page's deliveries wait ahead of live ones at any time: a replay of any size
 * paces itself instead of flooding the webhooks queue.
 */
import { randomUUID } from 'node:crypto'
import * as v from 'valibot'
import { config } from '../../config.ts'
import { RuleViolationError } from '../../domain/errors.ts'
import { eventTypes } from '../../domain/events.ts'
import { hasCapability, requireCapability } from '../../domain/plans/entitlements.ts'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import { replayRange, type ReplayInput } from '../../domain/webhooks/webhook-replay.ts'
import { deliveryIdFor, isDeliverable } from '../../domain/webhooks/webhook.ts'
import { log } from '../../log.ts'
import { sendMessage } from '../../queue/sqs.ts'
import { deliveriesWithRows, getEndpoint } from '../../store/deliveries/webhooks-store.ts'
import { countEventsInRange, eventRangePage, PageStart } from '../../store/outbox/outbox-range.ts'
import { writeAudit } from '../../store/tenants/audit-store.ts'
import { tenantById } from '../tenants/tenant-cache.ts'
import { relayedMessage, type WebhookMessage } from './webhook-messages.ts'
import { getLiveEndpoint } from './webhooks-service.ts'

/** The replay queue's message: one page of a replay, from `start` (the first page without). */
export const ReplayPageMessage = v.object({
  tenantId: v.pipe(v.string(), v.nonEmpty()),
  replayId: v.pipe(v.string(), v.nonEmpty()),
  endpointId: v.pipe(v.string(), v.nonEmpty()),
  after: v.pipe(v.string(), v.nonEmpty()),
  before: v.pipe(v.string(), v.nonEmpty()),
  events: v.array(v.picklist(eventTypes)),
  start: v.optional(PageStart),
})
export type ReplayPageMessage = v.InferOutput<typeof ReplayPageMessage>

/**
 * Starts a replay of the endpoint's subscribed events of the range (or of `events` among them).
 * Another tenant's endpoint, or a deleted one, is not found; a paused one is refused (its
 * deliveries would all fail as `endpoint_inactive`). Audited.
 * @returns the replay's id and how many events it sends (the count when it starts)
 * @throws ValidationError naming the field (webhook-replay.ts)
 */
export async function startReplay(
  tenant: TenantContext,
  endpointId: string,
  input: ReplayInput,
  actor: string,
  now = new Date().toISOString(),
): Promise<{ replayId: string; queued: number }> {
  const endpoint = await getLiveEndpoint(tenant, endpointId)
  requireCapability(tenant.plan, 'webhooks')
  if (!endpoint.isActive) {
    throw new RuleViolationError(
      'webhook.endpoint_inactive',
      'The endpoint is paused (is_active false): activate it before replaying',
    )
  }
  const range = replayRange(input, endpoint, now)
  const queued = await countEventsInRange(tenant, range)
  const replayId = randomUUID()
  if (queued > 0) {
    await sendMessage(config.webhookReplayQueueUrl, {
      tenantId: tenant.id,
      replayId,
      endpointId,
      ...range,
      events: [...range.events],
    } satisfies ReplayPageMessage)
  }
  await writeAudit(tenant, {
    action: 'webhook.replay',
    actor,
    details: { endpointId, replayId, ...range, queued },
    createdAt: now,
  })
  return { replayId, queued }
}

/**
 * One page of a replay: each event becomes a new delivery (its id derived from the replay and the
 * event, so a page handled twice queues nothing twice: the worker's claim refuses a duplicate) with
 * the envelope id and bytes of the event's original delivery to this endpoint: a copy of the
 * original's row when it has one (as retry-now copies: a stored event's map does not keep the key
 * order its first serialisation had), else built from the event by the relay's own function. Stops
 * when the tenant, the endpoint or the entitlement is gone.
 */
export async function replayPage(msg: ReplayPageMessage, at = new Date().toISOString()): Promise<number> {
  const tenant = await tenantById(msg.tenantId)
  if (!tenant || !hasCapability(tenant.plan, 'webhooks')) return 0
  const endpoint = await getEndpoint(tenant, msg.endpointId)
  if (!endpoint || !isDeliverable(endpoint)) {
    log('info', 'webhook replay stopped: endpoint inactive', { tenantId: tenant.id, replayId: msg.replayId })
    return 0
  }
  const page = await eventRangePage(tenant, msg, Math.max(1, config.webhookReplayPageSize), msg.start)
  const originalOf = (eventId: string) => deliveryIdFor(eventId, endpoint.id)
  const withRows = await deliveriesWithRows(
    tenant,
    page.events.map((e) => originalOf(e.id)),
  )
  for (const event of page.events) {
    const id = deliveryIdFor(event.id, msg.replayId)
    const original = originalOf(event.id)
    const message: WebhookMessage = withRows.has(original)
      ? {
          tenantId: tenant.id,
          deliveryId: id,
          attempt: 1,
          endpointId: endpoint.id,
          delivery: { createdAt: at, retryOf: original },
        }
      : relayedMessage(tenant.id, id, endpoint.id, event, at, original)
    await sendMessage(config.webhooksQueueUrl, message)
  }
  if (page.next) {
    await sendMessage(
      config.webhookReplayQueueUrl,
      { ...msg, start: page.next } satisfies ReplayPageMessage,
      config.webhookReplayPageDelaySeconds,
    )
  }
  return page.events.length
}
