/**
 * The events API and `lms events list` (api-additions section 5; decision 0044): the tenant's
 * catalog events of the last 30 days as the webhook envelope, and their redaction at erasure.
 */
import type { EventType } from '../../domain/events.ts'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import { personEventTypes, redactedData, windowStart } from '../../domain/webhooks/event-list.ts'
import { envelope, type EventEnvelope } from '../../domain/webhooks/webhook.ts'
import { eventsOfUser, findEvent, listEventsPage, replaceEventData } from '../../store/outbox/event-index.ts'
import type { DomainEvent } from '../../domain/events.ts'

export interface EventsQuery {
  readonly types?: readonly EventType[]
  readonly createdAfter?: string
  readonly createdBefore?: string
  readonly offset: number
  readonly limit: number
}

/** The envelope a delivery of this event carries, with the event's own id. */
const toEnvelope = (e: DomainEvent): EventEnvelope => envelope(e.id, e.event, e.createdAt, e.data)

/** The later of the window's start and the caller's lower bound. */
const lowerBound = (now: string, createdAfter?: string): string => {
  const start = windowStart(now)
  return createdAfter !== undefined && createdAfter > start ? createdAfter : start
}

export async function listEvents(
  tenant: TenantContext,
  q: EventsQuery,
  now = new Date().toISOString(),
): Promise<{ items: EventEnvelope[]; total: number }> {
  const page = await listEventsPage(tenant, {
    ...(q.types === undefined ? {} : { types: q.types }),
    after: lowerBound(now, q.createdAfter),
    ...(q.createdBefore === undefined ? {} : { before: q.createdBefore }),
    offset: q.offset,
    limit: q.limit,
  })
  return { items: page.items.map(toEnvelope), total: page.total }
}

export async function getEvent(
  tenant: TenantContext,
  id: string,
  now = new Date().toISOString(),
): Promise<EventEnvelope | undefined> {
  const event = await findEvent(tenant, id, windowStart(now))
  return event && toEnvelope(event)
}

/**
 * Erasure: the learner's e-mail in the stored events that carry it is replaced by the erased
 * placeholder, so neither the events API nor a delivery rebuilt from the item shows it again.
 * Every stored one is looked at (the index holds none older than the outbox keeps).
 * @returns how many events were redacted
 */
export async function redactEventsOf(tenant: TenantContext, userId: string): Promise<number> {
  const range = { after: '0000' }
  const found = (
    await Promise.all(personEventTypes.map((type) => eventsOfUser(tenant, type, userId, range)))
  ).flat()
  let redacted = 0
  for (const { key, event } of found) {
    const data = redactedData(event.data, userId)
    if (data === undefined) continue
    await replaceEventData(key, data)
    redacted++
  }
  return redacted
}
