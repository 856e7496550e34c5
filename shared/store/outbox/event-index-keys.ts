/**
 * The sparse index entries of an outbox item of a catalog event (decision 0044): gsi2 (the tenant's
 * events by time), gsi3 (one type's by time), gsi4 (the event by its id). Written with the item.
 */
import type { DomainEvent } from '../../domain/events.ts'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import { isListedEvent } from '../../domain/webhooks/event-list.ts'
import type { Item } from '../core/db.ts'
import { indexes, keys } from '../core/keys.ts'

export const eventIndexes = { all: indexes.gsi2, ofType: indexes.gsi3, byId: indexes.gsi4 } as const

type Tenant = Pick<TenantContext, 'id'>

/** The index attributes of an event's outbox item: none for an internal event. */
export function eventIndexAttributes(
  tenant: Tenant,
  e: Pick<DomainEvent, 'id' | 'event' | 'createdAt'>,
): Item {
  const { all, ofType, byId } = eventIndexes
  if (!isListedEvent(e.event)) return {}
  const at = keys.sortKey(e.createdAt, e.id)
  return {
    [all.pk]: keys.eventsIndexPk(tenant),
    [all.sk]: at,
    [ofType.pk]: keys.eventTypeIndexPk(tenant, e.event),
    [ofType.sk]: at,
    [byId.pk]: keys.eventIdIndexPk(tenant, e.id),
    [byId.sk]: e.createdAt,
  }
}
