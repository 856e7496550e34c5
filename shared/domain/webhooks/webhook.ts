/** Webhooks: endpoints, the delivery envelope, the signature and the retry schedule. */
import { createHash, createHmac, randomBytes } from 'node:crypto'
import * as v from 'valibot'
import type { EventType } from '../../domain/events.ts'
import { isOneOf } from '../validation.ts'

export const eventCatalog: readonly EventType[] = [
  'enrollment.created',
  'enrollment.completed',
  'enrollment.dropped',
  'course.published',
  'course.archived',
  'user.created',
  'user.deactivated',
  'user.reactivated',
  'certificate.issued',
  'job_role.assigned',
  'skill.attained',
]

export const isEventType = (value: string): value is EventType => isOneOf(eventCatalog, value)

export interface WebhookEndpoint {
  readonly id: string
  readonly url: string
  readonly events: readonly EventType[]
  readonly sealedSecret: string
  readonly createdAt: string
  readonly deletedAt: string | null
}

export const deliveryStatuses = ['pending', 'delivered', 'failed'] as const
export type DeliveryStatus = (typeof deliveryStatuses)[number]

export const ListDeliveriesFilters = v.object({
  status: v.optional(v.picklist(deliveryStatuses, `must be one of ${deliveryStatuses.join(', ')}`)),
  event: v.optional(v.picklist(eventCatalog, 'must be an event of the catalog')),
})

export interface WebhookDelivery {
  readonly id: string
  readonly endpointId: string
  readonly eventId: string
  readonly event: EventType
  readonly status: DeliveryStatus
  readonly attempts: number
  readonly httpStatus: number | null
  readonly responseBody: string | null
  readonly reason: string | null
  /** The exact bytes sent on every attempt. */
  readonly payload: string
  /** The envelope id: the same on retries and on a retry-now copy. */
  readonly envelopeId: string
  readonly retryOf: string | null
  readonly createdAt: string
  readonly updatedAt: string
  /** See shared/domain/attempts.ts. */
  readonly attemptRecorded: boolean
}

export const MAX_ATTEMPTS = 5
export const RESPONSE_BODY_LIMIT = 4096

export function newSigningSecret(): string {
  return `whsec_${randomBytes(24).toString('base64url')}`
}

/** `v1` is the hex HMAC-SHA256 of `<t>.<raw body>` keyed with the endpoint secret. */
export function signature(secret: string, timestamp: number, rawBody: string): string {
  const v1 = createHmac('sha256', secret).update(`${timestamp}.${rawBody}`).digest('hex')
  return `t=${timestamp},v1=${v1}`
}

/** Serialised once, when the delivery is created: retries send these very bytes. */
export function envelopeBody(
  envelopeId: string,
  event: EventType,
  createdAt: string,
  data: Record<string, unknown>,
): string {
  return JSON.stringify({ id: envelopeId, event, createdAt, data })
}

/** One delivery per event and endpoint, whoever relays it and however often. */
export function deliveryIdFor(eventId: string, endpointId: string): string {
  const h = createHash('sha256').update(`${eventId}/${endpointId}`).digest('hex')
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((parseInt(h.slice(16, 17), 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`
}

/** Seconds to wait before attempt n+1 after attempt n failed; undefined after the last. */
export function retryDelay(attemptsMade: number, delays: readonly number[]): number | undefined {
  if (attemptsMade >= MAX_ATTEMPTS) return undefined
  return delays[attemptsMade - 1]
}
