/**
 * Webhook replay (decision 0048): the events of a range sent again to one endpoint, each as a new
 * delivery under the envelope id of its original. What a replay may ask for is decided here.
 */
import * as v from 'valibot'
import { ValidationError } from '../errors.ts'
import type { EventType } from '../events.ts'
import { Timestamp } from '../validation.ts'
import { eventCatalog, type WebhookEndpoint } from './webhook.ts'

/** How far back a replay reaches: the outbox keeps events 30 days (outbox-items.ts). */
export const REPLAY_WINDOW_DAYS = 30

/** Unknown fields are refused, naming them. Both bounds are exclusive, as every `_after`/`_before`. */
export const ReplayInput = v.strictObject({
  created_after: Timestamp,
  created_before: Timestamp,
  events: v.optional(
    v.pipe(
      v.array(v.picklist(eventCatalog, 'must list event types of the catalog')),
      v.minLength(1, 'must list at least one event type'),
    ),
  ),
})
export type ReplayInput = v.InferOutput<typeof ReplayInput>

/** What a replay sends: the events strictly between `after` and `before`, of these types. */
export interface ReplayRange {
  readonly after: string
  readonly before: string
  readonly events: readonly EventType[]
}

/**
 * The range a replay request names, checked against the endpoint and the clock: bounds in order,
 * no further back than the window, and only events the endpoint subscribes to (asking for another
 * is a mistake worth naming, not an empty replay).
 * @throws ValidationError naming the field
 */
export function replayRange(input: ReplayInput, endpoint: WebhookEndpoint, now: string): ReplayRange {
  const { created_after: after, created_before: before } = input
  if (after >= before)
    throw new ValidationError('created_after', 'created_after must be before created_before')
  const oldest = new Date(Date.parse(now) - REPLAY_WINDOW_DAYS * 86_400_000).toISOString()
  if (after < oldest) {
    throw new ValidationError(
      'created_after',
      `created_after must be within the last ${REPLAY_WINDOW_DAYS} days (not before ${oldest})`,
    )
  }
  const unsubscribed = input.events?.find((e) => !endpoint.events.includes(e))
  if (unsubscribed !== undefined) {
    throw new ValidationError('events', `events: the endpoint does not subscribe to ${unsubscribed}`)
  }
  const events = input.events ? [...new Set(input.events)] : [...endpoint.events]
  return { after, before, events }
}
