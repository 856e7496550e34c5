/** Webhooks: endpoints, the delivery envelope, the signature and the retry schedule. */
import { createHash, createHmac, randomBytes } from 'node:crypto'
import * as v from 'valibot'
import type { EventType } from '../../domain/events.ts'
import { isOneOf } from '../validation.ts'

export const eventCatalog: readonly EventType[] = [
  'enrollment.created',
  'enrollment.completed',
  'enrollment.dropped',
  'enrollment.status_changed',
  'course.published',
  'course.archived',
  'user.created',
  'user.deactivated',
  'user.reactivated',
  'certificate.issued',
  'certificate.expiring',
  'certificate.expired',
  'job_role.assigned',
  'skill.attained',
]

export const isEventType = (value: string): value is EventType => isOneOf(eventCatalog, value)

export interface WebhookEndpoint {
  readonly id: string
  readonly url: string
  readonly events: readonly EventType[]
  readonly description: string | null
  /** Paused by the tenant (false): nothing is fanned out to it and its pending deliveries stop. */
  readonly isActive: boolean
  readonly sealedSecret: string
  /** The secret before the last rotation, sealed like the current one, signing until it expires. */
  readonly previousSealedSecret: string | null
  readonly previousSecretExpiresAt: string | null
  readonly secretRotatedAt: string | null
  readonly createdAt: string
  /** Null on endpoints written before they could change: read as their creation. */
  readonly updatedAt: string | null
  readonly deletedAt: string | null
}

/** Deliveries go to it: neither deleted nor paused. */
export const isDeliverable = (e: WebhookEndpoint): boolean => e.deletedAt === null && e.isActive

/** The sealed secrets that sign a delivery made at `at`: the current one, and the previous one until it expires. */
export function signingSealedSecrets(e: WebhookEndpoint, at: string): string[] {
  const previousLive =
    e.previousSealedSecret !== null && e.previousSecretExpiresAt !== null && at < e.previousSecretExpiresAt
  return previousLive ? [e.sealedSecret, e.previousSealedSecret as string] : [e.sealedSecret]
}

const EventList = v.pipe(
  v.array(v.picklist(eventCatalog, 'must list event types of the catalog')),
  v.minLength(1, 'must list at least one event type'),
)
const Description = v.nullable(v.pipe(v.string(), v.maxLength(500, 'must be at most 500 characters')))
const Url = v.pipe(
  v.string(),
  v.minLength(1, 'must be an https URL'),
  v.maxLength(2048, 'must be at most 2048 characters'),
)

/** Unknown fields are refused (naming them), not ignored: a misspelt setting must not pass silently. */
export const CreateEndpointInput = v.strictObject({
  url: Url,
  events: EventList,
  description: v.optional(Description),
})
export type CreateEndpointInput = v.InferOutput<typeof CreateEndpointInput>

export const UpdateEndpointInput = v.strictObject({
  url: v.optional(Url),
  events: v.optional(EventList),
  description: v.optional(Description),
  is_active: v.optional(v.boolean('must be true or false')),
})
export type UpdateEndpointInput = v.InferOutput<typeof UpdateEndpointInput>

export const MAX_PREVIOUS_SECRET_SECONDS = 86_400

export const RotateSecretInput = v.strictObject({
  expire_previous_in_seconds: v.optional(
    v.pipe(
      v.number('must be a number of seconds'),
      v.integer('must be a whole number of seconds'),
      v.minValue(0, 'must be 0 to 86400'),
      v.maxValue(MAX_PREVIOUS_SECRET_SECONDS, 'must be 0 to 86400'),
    ),
    MAX_PREVIOUS_SECRET_SECONDS,
  ),
})

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

const SECRET_PREFIX = 'whsec_'

/** `whsec_` and the base64 of 32 random bytes: the form Standard Webhooks' libraries take as it is. */
export function newSigningSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`
}

/**
 * The Standard Webhooks key: the bytes the secret's text after `whsec_` encodes. Node's base64
 * decoder reads both alphabets, so a secret made before 0045 (`whsec_` and base64url of 24 bytes)
 * gives its 24 bytes, with no stored marker of its form (docs/decisions/0045-standard-webhooks.md).
 */
export function standardWebhooksKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64')
}

/**
 * `v1` is the hex HMAC-SHA256 of `<t>.<raw body>` keyed with the endpoint secret; during a
 * rotation each signing secret adds its own `v1=` entry (current first), and a receiver accepts
 * the delivery when any entry matches a secret it knows.
 */
export function signature(secrets: string | readonly string[], timestamp: number, rawBody: string): string {
  const entries = (typeof secrets === 'string' ? [secrets] : secrets).map(
    (secret) => `v1=${createHmac('sha256', secret).update(`${timestamp}.${rawBody}`).digest('hex')}`,
  )
  return [`t=${timestamp}`, ...entries].join(',')
}

/**
 * Standard Webhooks' `webhook-signature`: `v1,<base64 HMAC-SHA256 of "<id>.<t>.<raw body>">` keyed
 * with each signing secret's key (standardWebhooksKey), space-separated, current first.
 */
export function standardSignature(
  secrets: readonly string[],
  envelopeId: string,
  timestamp: number,
  rawBody: string,
): string {
  return secrets
    .map(
      (secret) =>
        `v1,${createHmac('sha256', standardWebhooksKey(secret)).update(`${envelopeId}.${timestamp}.${rawBody}`).digest('base64')}`,
    )
    .join(' ')
}

/**
 * The signature headers of one attempt, both schemes at the same instant: the specification's
 * `x-service-signature` and Standard Webhooks' three. `webhook-id` is the envelope id, the same on
 * every retry, which Standard Webhooks receivers deduplicate on.
 */
export function signatureHeaders(
  secrets: readonly string[],
  envelopeId: string,
  timestamp: number,
  rawBody: string,
): Record<string, string> {
  return {
    'x-service-signature': signature(secrets, timestamp, rawBody),
    'webhook-id': envelopeId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': standardSignature(secrets, envelopeId, timestamp, rawBody),
  }
}

/** The webhook envelope: what a delivery carries, and each item of the events API. */
export interface EventEnvelope {
  readonly id: string
  readonly event: EventType
  readonly createdAt: string
  readonly data: Record<string, unknown>
}

export function envelope(
  envelopeId: string,
  event: EventType,
  createdAt: string,
  data: Record<string, unknown>,
): EventEnvelope {
  return { id: envelopeId, event, createdAt, data }
}

/** Serialised once, when the delivery is created: retries send these very bytes. */
export function envelopeBody(
  envelopeId: string,
  event: EventType,
  createdAt: string,
  data: Record<string, unknown>,
): string {
  return JSON.stringify(envelope(envelopeId, event, createdAt, data))
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
