/**
 * The events API (api-additions section 5): which stored events it lists, over which window, and
 * how its query reads. Only events of the webhook catalog are listed; internal ones (learning
 * activity for statement export) and notifications never are.
 */
import * as v from 'valibot'
import type { EventType } from '../events.ts'
import { erasedEmail } from '../users/erasure.ts'
import { Timestamp, withRange } from '../validation.ts'
import { eventPayloads } from './event-payloads.ts'
import { eventCatalog, isEventType } from './webhook.ts'

/** How far back the events API reaches; the outbox keeps items at least this long (outbox-items.ts). */
export const EVENT_WINDOW_DAYS = 30

/** The oldest instant listed at `now`: an event older than the window is never shown, expired or not. */
export function windowStart(now: string): string {
  return new Date(Date.parse(now) - EVENT_WINDOW_DAYS * 24 * 3600 * 1000).toISOString()
}

export const isListedEvent = (type: string): type is EventType => isEventType(type)

const Types = v.pipe(
  v.string(),
  v.transform((s) => s.split(',').map((t) => t.trim())),
  v.check(
    (types) => types.every((t) => isEventType(t)),
    `must be event types of the catalog (${eventCatalog.join(', ')}), comma-separated`,
  ),
  v.transform((types) => [...new Set(types)] as EventType[]),
)

export const ListEventsFilters = withRange(
  v.object({
    type: v.optional(Types),
    created_after: v.optional(Timestamp),
    created_before: v.optional(Timestamp),
  }),
  'created_after',
  'created_before',
  'exclusive',
)

/**
 * A stored event's data with the erased learner's e-mail replaced by the erased placeholder
 * (erasure.ts), or undefined when it holds none of theirs: person events carry `{userId, email}`.
 */
export function redactedData(
  data: Readonly<Record<string, unknown>>,
  userId: string,
): Record<string, unknown> | undefined {
  if (data.userId !== userId || typeof data.email !== 'string') return undefined
  const email = erasedEmail(userId)
  return data.email === email ? undefined : { ...data, email }
}

/** The catalog events whose data names a person by e-mail: what erasure looks through. */
export const personEventTypes: readonly EventType[] = ['user.created', 'user.deactivated', 'user.reactivated']

/** One item of the events API: the envelope of a delivery of that event (OpenAPI `webhooks:`). */
export const EventEnvelopeSchema = v.union(
  Object.entries(eventPayloads).map(([type, data]) =>
    v.object({
      id: v.pipe(v.string(), v.uuid()),
      event: v.literal(type),
      createdAt: v.pipe(v.string(), v.isoTimestamp()),
      data,
    }),
  ),
)
