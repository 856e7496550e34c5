/**
 * The webhooks queue's message, and the row of the new delivery its attempt 1 names: the worker's
 * claim of that attempt is the one writer of a delivery row (decisions 0015, 0028), whether the
 * message carries the payload, names the stored event it is rebuilt from, or names the original of
 * a retry-now copy.
 */
import * as v from 'valibot'
import type { DomainEvent } from '../../domain/events.ts'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import { envelopeBody, eventCatalog, type WebhookDelivery } from '../../domain/webhooks/webhook.ts'
import { getDelivery } from '../../store/deliveries/webhooks-store.ts'
import { getOutboxEvent } from '../../store/outbox/outbox-store.ts'

/** What the relay's message says of a new delivery, whatever its size. */
const newDelivery = {
  endpointId: v.pipe(v.string(), v.nonEmpty()),
  eventId: v.pipe(v.string(), v.nonEmpty()),
  event: v.picklist(eventCatalog),
  createdAt: v.pipe(v.string(), v.nonEmpty()),
  /**
   * The envelope id the body carries when it is not the delivery's own: a replay sends the event
   * again as a new delivery under the envelope id of its original (decision 0048).
   */
  envelopeId: v.optional(v.pipe(v.string(), v.nonEmpty())),
}

/** The webhooks queue's message: attempt `attempt` of one delivery. */
export const WebhookMessage = v.object({
  tenantId: v.pipe(v.string(), v.nonEmpty()),
  deliveryId: v.pipe(v.string(), v.nonEmpty()),
  attempt: v.pipe(v.number(), v.integer(), v.minValue(1)),
  /**
   * The delivery's endpoint, so the worker reads it beside its claim instead of after it (one
   * round trip fewer before the request). Only a hint: the attempt uses the endpoint its claimed
   * row names. Absent from messages queued before it was added.
   */
  endpointId: v.optional(v.pipe(v.string(), v.nonEmpty())),
  /**
   * The new delivery, on the message for its attempt 1: the worker's claim writes its row, the
   * only writer of a delivery row (decisions 0015, 0028). Absent on later attempts and on messages
   * queued before it was added.
   */
  delivery: v.optional(
    v.union([
      v.object({ ...newDelivery, payload: v.string() }),
      // Too large to carry: rebuilt from the stored event, which `eventAt` and `eventId` name.
      v.object({ ...newDelivery, eventAt: v.pipe(v.string(), v.nonEmpty()) }),
      // A retry-now copy: of the original row, which holds the bytes and the envelope id.
      v.object({ createdAt: v.pipe(v.string(), v.nonEmpty()), retryOf: v.pipe(v.string(), v.nonEmpty()) }),
    ]),
  ),
})
export type WebhookMessage = v.InferOutput<typeof WebhookMessage>

/** The largest payload a message carries (SQS takes 256 KiB, and later attempts' messages copy it). */
const MESSAGE_PAYLOAD_MAX_BYTES = 64 * 1024

/** The attempt columns of a new delivery. */
const unattempted = (at: string) =>
  ({
    status: 'pending',
    attempts: 0,
    httpStatus: null,
    responseBody: null,
    reason: null,
    createdAt: at,
    updatedAt: at,
    attemptRecorded: true,
  }) as const

/** A retry-now copy: a new delivery with the identical body, envelope id included. */
export const retryCopy = (original: WebhookDelivery, id: string, at: string): WebhookDelivery => ({
  ...original,
  id,
  retryOf: original.id,
  ...unattempted(at),
})

/**
 * The row of the new delivery a message names: its payload carried, rebuilt from the stored event
 * by the relay's own function, or a retry's copy of its original. The row holds the bytes from then
 * on, so every attempt sends the same. The event outlives the message (outbox-items.ts).
 * @throws Error when the event or original is gone: the message goes to the dead-letter queue
 */
export async function newDeliveryRow(
  tenant: TenantContext,
  id: string,
  d: NonNullable<WebhookMessage['delivery']>,
): Promise<WebhookDelivery> {
  if ('retryOf' in d) {
    const original = await getDelivery(tenant, d.retryOf)
    if (!original) throw new Error(`The delivery retried by webhook delivery ${id} is gone`)
    return retryCopy(original, id, d.createdAt)
  }
  const payload = 'payload' in d ? d.payload : await rebuiltPayload(tenant, id, d)
  const { endpointId, eventId, event: type, createdAt } = d
  return {
    id,
    endpointId,
    eventId,
    event: type,
    payload,
    envelopeId: d.envelopeId ?? id,
    retryOf: null,
    ...unattempted(createdAt),
  }
}

async function rebuiltPayload(
  tenant: TenantContext,
  id: string,
  d: { eventAt: string; eventId: string; envelopeId?: string | undefined },
): Promise<string> {
  const event = await getOutboxEvent(tenant, d.eventAt, d.eventId)
  if (!event) throw new Error(`The event of webhook delivery ${id} is gone`)
  return envelopeBody(d.envelopeId ?? id, event.event, event.createdAt, event.data)
}

/**
 * Attempt 1 of a relayed delivery: its exact payload when it fits, else its event named. A replay
 * names the envelope id of the original delivery (the same bytes as it); a relayed delivery's
 * envelope id is its own id.
 */
export function relayedMessage(
  tenantId: string,
  id: string,
  endpointId: string,
  event: DomainEvent,
  at: string,
  envelopeId = id,
): WebhookMessage {
  const payload = envelopeBody(envelopeId, event.event, event.createdAt, event.data)
  const ref = {
    endpointId,
    eventId: event.id,
    event: event.event,
    createdAt: at,
    ...(envelopeId === id ? {} : { envelopeId }),
  }
  const fits = Buffer.byteLength(payload, 'utf8') <= MESSAGE_PAYLOAD_MAX_BYTES
  const delivery = fits ? { ...ref, payload } : { ...ref, eventAt: event.createdAt }
  return { tenantId, deliveryId: id, attempt: 1, endpointId, delivery }
}
