/**
 * Counters of a tenant's catalog events (decision 0053), so that the events API's `meta.total`
 * reads a handful of small items instead of every index entry of its range. One partition per
 * tenant and type (`*`: all types), one item per UTC day, hour and minute of event time
 * (event-count-plan.ts). The relay adds to them in the transaction that marks the event relayed,
 * which only one relayer wins: each event is counted once.
 */
import * as v from 'valibot'
import type { DomainEvent, EventType } from '../../domain/events.ts'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import { bucketsOf, bucketStart, type BucketRun } from '../../domain/webhooks/event-count-plan.ts'
import { isListedEvent } from '../../domain/webhooks/event-list.ts'
import { queryAll, type Item, type TransactItem } from '../core/db.ts'
import { decodeItem } from '../core/decode.ts'
import { cond, queryExpression, updateExpression } from '../core/expression.ts'
import { keys, TTL_ATTRIBUTE, type Key } from '../core/keys.ts'

type Tenant = Pick<TenantContext, 'id'>

/** The partition of every type's counts. */
const ALL_TYPES = '*'

/** A counter outlives the events API's window (30 days) after its bucket ends, by a day at least. */
const COUNTER_RETENTION_SECONDS = 32 * 24 * 3600

/** The counter items an event adds 1 to: its type's and all types', by day, hour and minute. */
export function counterKeysOf(tenant: Tenant, e: Pick<DomainEvent, 'event' | 'createdAt'>): Key[] {
  if (!isListedEvent(e.event)) return []
  const buckets = bucketsOf(e.createdAt)
  return [e.event, ALL_TYPES].flatMap((type) =>
    buckets.map((sk) => ({ pk: keys.eventCountPk(tenant, type), sk })),
  )
}

/** What a counter item holds besides its key and count: its kind and its expiry. */
function counterAttributes(key: Key): Item {
  return {
    type: 'event_count',
    [TTL_ATTRIBUTE]: Math.floor(bucketStart(key.sk) / 1000) + COUNTER_RETENTION_SECONDS,
  }
}

/** Adds `n` to one counter item (created by its first addition), unconditioned: additions commute. */
export function counterAdd(Key: Key, n: number): TransactItem {
  return { Update: { Key, ...updateExpression({ add: { n }, set: counterAttributes(Key) }) } }
}

/** Counter keys merged into one addition per item: a transaction may not name an item twice. */
export function mergedCounts(list: readonly Key[]): { key: Key; n: number }[] {
  const counts = new Map<string, { key: Key; n: number }>()
  for (const key of list) {
    const id = `${key.pk} ${key.sk}`
    const c = counts.get(id)
    if (c) c.n++
    else counts.set(id, { key, n: 1 })
  }
  return [...counts.values()]
}

/**
 * The counter items of many relayed events, whole, as their marks' additions leave them: what a
 * bulk load writes at once (bench/events-list.ts) instead of one mark per event.
 */
export function counterItems(
  tenant: Tenant,
  events: readonly Pick<DomainEvent, 'event' | 'createdAt'>[],
): Item[] {
  return mergedCounts(events.flatMap((e) => counterKeysOf(tenant, e))).map(({ key, n }) => ({
    ...key,
    ...counterAttributes(key),
    n,
  }))
}

/** One run of whole buckets of one type's counters (every type's when undefined). */
export function counterRunParams(tenant: Tenant, type: EventType | undefined, r: BucketRun) {
  const pk = keys.eventCountPk(tenant, type ?? ALL_TYPES)
  // '~' sorts after every label character: no upper bound within the granularity.
  const to = r.to ?? `${r.from.slice(0, 2)}~`
  return queryExpression({ key: cond.and(cond.eq('pk', pk), cond.between('sk', r.from, to)) })
}

const Counter = v.object({ n: v.number() })

/** The sum of a run of whole buckets. */
export async function sumCounters(
  tenant: Tenant,
  type: EventType | undefined,
  r: BucketRun,
): Promise<number> {
  const items = await queryAll(counterRunParams(tenant, type, r))
  return items.reduce((sum, item) => sum + decodeItem('event_count', Counter, item).n, 0)
}
