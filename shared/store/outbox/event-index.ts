/**
 * The events API's reads of the outbox (decision 0044). An outbox item of a catalog event carries
 * three sparse index entries, written with it: gsi2 (the tenant's events by time), gsi3 (one type's
 * events by time) and gsi4 (the event by its id; the table's sort key holds its time). Internal
 * events and notifications carry none, so they are never read here. Each page is a Query, newest
 * first, bounded below by the window's start: an item past it is not shown while its TTL runs out.
 */
import type { QueryCommandInput } from '@aws-sdk/lib-dynamodb'
import type { DomainEvent, EventType } from '../../domain/events.ts'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import { conditionally, queryCount, queryUpTo, updateItem, type Item } from '../core/db.ts'
import { cond, queryExpression, updateExpression, type Condition } from '../core/expression.ts'
import { keys, type Key } from '../core/keys.ts'
import { countPlan } from '../../domain/webhooks/event-count-plan.ts'
import { eventIndexes } from './event-index-keys.ts'
import { sumCounters } from './event-counters.ts'
import { outboxEventEntity } from './outbox-items.ts'

const { all, ofType, byId } = eventIndexes

type Tenant = Pick<TenantContext, 'id'>

/** Exclusive bounds, canonical ISO instants; `after` is at least the window's start. */
export interface EventRange {
  readonly after: string
  readonly before?: string
}

export interface EventPageQuery extends EventRange {
  /** undefined: every catalog event. */
  readonly types?: readonly EventType[]
  readonly offset: number
  readonly limit: number
}

/** Sort values are `<created_at>#<id>`: '~' sorts after every id character, '#' before them all. */
function rangeCondition(
  index: { readonly pk: string; readonly sk: string },
  pk: string,
  r: EventRange,
): Condition {
  const low = `${r.after}#~`
  return cond.and(
    cond.eq(index.pk, pk),
    r.before === undefined ? cond.gt(index.sk, low) : cond.between(index.sk, low, `${r.before}#`),
  )
}

/** Newest first: the tenant's events, or one type's. */
export function eventsPageParams(
  tenant: Tenant,
  r: EventRange,
  type?: EventType,
): Omit<QueryCommandInput, 'TableName'> {
  const [index, pk] =
    type === undefined ? [all, keys.eventsIndexPk(tenant)] : [ofType, keys.eventTypeIndexPk(tenant, type)]
  return {
    IndexName: index.name,
    ...queryExpression({ key: rangeCondition(index, pk, r) }),
    ScanIndexForward: false,
  }
}

const decode = (item: Item): DomainEvent => {
  const { id, event, createdAt, data } = outboxEventEntity.decode(item)
  return { id, event, createdAt, data }
}

const newestFirst = (a: DomainEvent, b: DomainEvent): number => {
  const [x, y] = [keys.sortKey(a.createdAt, a.id), keys.sortKey(b.createdAt, b.id)]
  return x < y ? 1 : x > y ? -1 : 0
}

/**
 * A page and its total. Several types are one Query each (the first offset + limit entries of
 * each), merged: a page never reads another type's entries.
 */
export async function listEventsPage(
  tenant: Tenant,
  q: EventPageQuery,
): Promise<{ items: DomainEvent[]; total: number }> {
  const want = q.offset + q.limit
  const types = q.types ?? [undefined]
  const [pages, counts] = await Promise.all([
    Promise.all(
      types.map((type) =>
        queryUpTo({ ...eventsPageParams(tenant, q, type), Limit: Math.min(1000, want) }, want),
      ),
    ),
    Promise.all(types.map((type) => countEvents(tenant, q, type))),
  ])
  const merged = pages.flat().map(decode).sort(newestFirst)
  return { items: merged.slice(q.offset, want), total: counts.reduce((a, b) => a + b, 0) }
}

/**
 * How many of the tenant's events (one type's) the range holds, without reading them (decision
 * 0053): the counters of the whole days, hours and minutes it covers, and a COUNT of the index over
 * the partial minutes at its two edges only. Counters move at the relay: an event not yet relayed
 * is listed but not yet counted.
 */
export async function countEvents(tenant: Tenant, r: EventRange, type?: EventType): Promise<number> {
  const plan = countPlan(r.after, r.before)
  const counts = await Promise.all([
    ...plan.runs.map((run) => sumCounters(tenant, type, run)),
    ...plan.partials.map((p) => queryCount(eventsPageParams(tenant, p, type))),
  ])
  return counts.reduce((a, b) => a + b, 0)
}

/** The event of this id in the tenant's partition (another tenant's id finds nothing), if listed. */
export function eventByIdParams(
  tenant: Tenant,
  id: string,
  after: string,
): Omit<QueryCommandInput, 'TableName'> {
  return {
    IndexName: byId.name,
    ...queryExpression({
      key: cond.and(cond.eq(byId.pk, keys.eventIdIndexPk(tenant, id)), cond.ge(byId.sk, after)),
    }),
  }
}

export async function findEvent(tenant: Tenant, id: string, after: string): Promise<DomainEvent | undefined> {
  const [item] = await queryUpTo(eventByIdParams(tenant, id, after), 1)
  return item && decode(item)
}

/** A stored event with its outbox key: what erasure rewrites. */
export interface StoredEvent {
  readonly key: Key
  readonly event: DomainEvent
}

/** One type's events of the range whose data names this user (erasure: rare, bounded by the window). */
export async function eventsOfUser(
  tenant: Tenant,
  type: EventType,
  userId: string,
  r: EventRange,
): Promise<StoredEvent[]> {
  const key = rangeCondition(ofType, keys.eventTypeIndexPk(tenant, type), r)
  const input = {
    IndexName: ofType.name,
    ...queryExpression({ key, filter: cond.eq('data.userId', userId) }),
  }
  return (await queryUpTo(input, Number.POSITIVE_INFINITY)).map((item) => {
    const event = decode(item)
    return { key: keys.outboxEvent(tenant, event.createdAt, event.id), event }
  })
}

/** Replaces a stored event's data (erasure's redaction); nothing when the item is gone meanwhile. */
export async function replaceEventData(key: Key, data: Record<string, unknown>): Promise<void> {
  await conditionally(updateItem({ Key: key, ...updateExpression({ set: { data } }, cond.exists()) }))
}
