/** A webhook delivery as the API and the CLI show it: the exact payload sent, and what came back. */
import * as v from 'valibot'
import { eventTypes } from '../../shared/domain/events.ts'
import { deliveryStatuses, type WebhookDelivery } from '../../shared/domain/webhooks/webhook.ts'

export const DeliverySchema = v.object({
  id: v.string(),
  endpoint_id: v.string(),
  event: v.picklist(eventTypes),
  event_id: v.string(),
  status: v.picklist(deliveryStatuses),
  http_status: v.nullable(v.number()),
  attempts: v.number(),
  reason: v.nullable(v.string()),
  response_body: v.nullable(v.string()),
  payload: v.pipe(
    v.string(),
    v.description('The exact bytes signed and sent (a JSON envelope, as a string)'),
  ),
  retry_of: v.nullable(v.string()),
  created_at: v.string(),
  updated_at: v.string(),
})

export function toDeliveryResource(d: WebhookDelivery): v.InferOutput<typeof DeliverySchema> {
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
    /** The bytes signed and sent, as a string: re-serialising them would change the signature. */
    payload: d.payload,
    retry_of: d.retryOf,
    created_at: d.createdAt,
    updated_at: d.updatedAt,
  }
}
