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
import { queryAll, type TransactItem } from '../core/db.ts'
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

/** Adds `n` to one counter item (created by its first addition), unconditioned: additions commute. */
export function counterAdd(Key: Key, n: number): TransactItem {
  const ttl = Math.floor(bucketStart(Key.sk) / 1000) + COUNTER_RETENTION_SECONDS
  return {
    Update: { Key, ...updateExpression({ add: { n }, set: { type: 'event_count', [TTL_ATTRIBUTE]: ttl } }) },
  }
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
