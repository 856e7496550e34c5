/** A webhook delivery as the API and the CLI show it: the exact payload sent, and what came back. */
import type { WebhookDelivery } from '../../shared/domain/webhooks/webhook.ts'

export function toDeliveryResource(d: WebhookDelivery) {
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
