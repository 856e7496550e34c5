/**
 * Reading the outbox: one pending index for events and notifications alike, read by the relay (as
 * the stream hands it items) and by the sweeper (for anything the stream has not relayed), and
 * what tests see a change wrote next to it.
 */
import type { QueryCommandInput } from '@aws-sdk/lib-dynamodb'
import * as v from 'valibot'
import type { DomainEvent, Notification } from '../../domain/events.ts'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import { windowStart } from '../../domain/webhooks/event-list.ts'
import { conditionally, getItem, putItem, queryUpTo, queryAll, updateItem, type Item } from '../core/db.ts'
import { decodeEach, decodeItem } from '../core/decode.ts'
import { cond, queryExpression, updateExpression } from '../core/expression.ts'
import { indexes, keys, TTL_ATTRIBUTE, type Key } from '../core/keys.ts'
import { effectSteps, outboxEventEntity, outboxExpiry, outboxNotificationEntity } from './outbox-items.ts'
import { MalformedItem, WriteRefused } from '../core/store-errors.ts'
import { commit, MAX_TRANSACTION_ITEMS, type Step } from '../core/transaction.ts'
import { counterAdd, counterKeysOf, mergedCounts } from './event-counters.ts'

/** A domain event waiting to be fanned out to webhook deliveries and record-store statements. */
export interface PendingEvent {
  readonly kind: 'event'
  /** The outbox item's key: where it is marked relayed. */
  readonly key: Key
  readonly tenantId: string
  readonly event: DomainEvent
  /** When the change was saved (wall clock); older items fall back to their event time. */
  readonly recordedAt: string
  /** Whether its enrollment has an AGS link (outbox-items.ts); null: not said. */
  readonly scoresLinked: boolean | null
}

/** A notification waiting to go onto the notifications queue. */
export interface PendingNotification {
  readonly kind: 'notification'
  readonly key: Key
  /** null for the platform's own notifications (contact requests). */
  readonly tenantId: string | null
  readonly notification: Notification
}

/** What the relay hands on: either kind of outbox item. */
export type OutboxEntry = PendingEvent | PendingNotification

/** What says which kind an outbox item is, and where it is marked relayed. */
const OutboxHead = v.object({ pk: v.string(), sk: v.string(), type: v.picklist(['event', 'notification']) })

/** @throws MalformedItem naming the item's key, never a value */
export function toOutboxEntry(item: Item): OutboxEntry {
  const { type, ...key } = decodeItem('outbox_item', OutboxHead, item)
  if (type === 'event') {
    const { tenantId, recordedAt, scoresLinked, ...event } = outboxEventEntity.decode(item)
    return { kind: 'event', key, tenantId, recordedAt: recordedAt ?? event.createdAt, scoresLinked, event }
  }
  const { tenantId, email, ...notification } = outboxNotificationEntity.decode(item)
  return {
    kind: 'notification',
    key,
    tenantId,
    notification: { ...notification, ...(email === null ? {} : { email }) },
  }
}

/** A tenant's outbox items (events and notifications), oldest first. */
export function outboxQueryParams(tenant: TenantContext): Omit<QueryCommandInput, 'TableName'> {
  return {
    ...queryExpression({
      key: cond.and(cond.eq('pk', keys.tenantPartition(tenant)), cond.beginsWith('sk', keys.outboxPrefix)),
    }),
    ConsistentRead: true,
  }
}

const outboxEntries = async (tenant: TenantContext) =>
  (await queryAll(outboxQueryParams(tenant))).map(toOutboxEntry)

/** An event that is the whole change (nothing else to write with it). */
export async function appendEvent(tenant: TenantContext, e: DomainEvent): Promise<void> {
  await commit(effectSteps(tenant, { events: [e] }))
}

/**
 * A stored event by its time and id, strongly consistent (the relay may have read it from the
 * stream a moment ago): what the webhook worker rebuilds a delivery too large for its message
 * from (decision 0028). undefined when it is gone.
 */
export async function getOutboxEvent(
  tenant: TenantContext,
  createdAt: string,
  eventId: string,
): Promise<DomainEvent | undefined> {
  const item = await getItem(keys.outboxEvent(tenant, createdAt, eventId), { ConsistentRead: true })
  const entry = item && toOutboxEntry(item)
  return entry?.kind === 'event' ? entry.event : undefined
}

export async function listOutboxEvents(tenant: TenantContext): Promise<DomainEvent[]> {
  return (await outboxEntries(tenant)).flatMap((o) => (o.kind === 'event' ? [o.event] : []))
}

export async function listOutboxNotifications(tenant: TenantContext): Promise<Notification[]> {
  return (await outboxEntries(tenant)).flatMap((o) => (o.kind === 'notification' ? [o.notification] : []))
}

export const relayParams = {
  /** Outbox items written before `before` still in the sparse pending index, oldest first. */
  pending: (before: string, limit: number) => ({
    IndexName: indexes.gsi1.name,
    ...queryExpression({
      key: cond.and(cond.eq(indexes.gsi1.pk, keys.pendingOutboxPk), cond.lt(indexes.gsi1.sk, before)),
    }),
    Limit: limit,
  }),

  /**
   * Out of the pending index, with how many webhook deliveries an event's fan-out queued (their
   * rows are written by the worker's first claim: decision 0015), kept 30 days from now: longer
   * than any message of its relay lives, so a worker can rebuild a delivery from it (0028).
   * Refused when the item is no longer pending: relayed already (by the stream or the sweeper:
   * what makes the counters added with the mark count each event once, decision 0053) or gone.
   */
  markRelayed: (key: Key, at: string, deliveries?: number) => ({
    Key: key,
    ...updateExpression(
      {
        set: {
          relayed_at: at,
          ...(deliveries === undefined ? {} : { relayed_deliveries: deliveries }),
          [TTL_ATTRIBUTE]: outboxExpiry(at),
        },
        remove: [indexes.gsi1.pk, indexes.gsi1.sk],
      },
      cond.exists(indexes.gsi1.pk),
    ),
  }),

  checkpoint: (shardId: string) => ({ Key: keys.relayCheckpoint(shardId), ConsistentRead: true }),

  putCheckpoint: (shardId: string, sequenceNumber: string) => ({
    Item: { ...keys.relayCheckpoint(shardId), type: 'relay_checkpoint', sequence_number: sequenceNumber },
  }),
}

/**
 * Outbox items still waiting to be relayed that were written before `before` (oldest first). An
 * item that does not read as either kind is handed back as its MalformedItem error, so it is
 * reported without holding up the items behind it.
 */
export async function listPending(
  before: string,
  limit: number,
): Promise<{ readable: OutboxEntry[]; unreadable: MalformedItem[] }> {
  return decodeEach(await queryUpTo(relayParams.pending(before, limit), limit), toOutboxEntry)
}

/** A relayed item, with how many webhook deliveries its fan-out queued (events only). */
export interface Relayed {
  readonly entry: OutboxEntry
  readonly deliveries?: number
}

/** Takes a relayed item out of the pending index; nothing when it has left it already. */
export async function markRelayed({ entry, deliveries }: Relayed, at: string): Promise<void> {
  await conditionally(updateItem(relayParams.markRelayed(entry.key, at, deliveries)))
}

/** The counters an item's marking adds to: a catalog event's, unless it is already past the window. */
function countedKeys(entry: OutboxEntry, at: string): Key[] {
  if (entry.kind !== 'event' || entry.event.createdAt <= windowStart(at)) return []
  return counterKeysOf({ id: entry.tenantId }, entry.event)
}

const keyId = (k: Key) => `${k.pk} ${k.sk}`

/**
 * The marks of some relayed items (each refused by its position when the item is no longer
 * pending) and their counter additions, merged per counter item: a transaction may not name an
 * item twice.
 */
function markSteps(chunk: readonly Relayed[], at: string): Step<number>[] {
  const counts = mergedCounts(chunk.flatMap((r) => countedKeys(r.entry, at)))
  return [
    ...chunk.map((r, i) => ({
      item: { Update: relayParams.markRelayed(r.entry.key, at, r.deliveries) },
      refusal: i,
    })),
    ...counts.map((c) => ({ item: counterAdd(c.key, c.n) })),
  ]
}

/** Consecutive items whose marks and distinct counter items fit in one transaction each. */
function transactionChunks(relayed: readonly Relayed[], at: string): Relayed[][] {
  const chunks: Relayed[][] = []
  let chunk: Relayed[] = []
  let counters = new Set<string>()
  for (const r of relayed) {
    const ids = countedKeys(r.entry, at).map(keyId)
    const added = ids.filter((id) => !counters.has(id)).length
    if (chunk.length > 0 && chunk.length + 1 + counters.size + added > MAX_TRANSACTION_ITEMS) {
      chunks.push(chunk)
      chunk = []
      counters = new Set()
    }
    chunk.push(r)
    for (const id of ids) counters.add(id)
  }
  if (chunk.length > 0) chunks.push(chunk)
  return chunks
}

/**
 * Marks one chunk in one transaction. When some marks are refused (relayed by the other relayer,
 * or gone), the transaction is sent again without them, so each event is counted by one only.
 */
async function markChunk(chunk: readonly Relayed[], at: string): Promise<void> {
  let left = chunk
  while (left.length > 0) {
    const steps = markSteps(left, at)
    const [only] = left
    // A transaction costs twice the write units of a plain update: alone, an item takes the update.
    if (steps.length === 1 && only) {
      await markRelayed(only, at)
      return
    }
    try {
      await commit(steps)
      return
    } catch (err) {
      if (!(err instanceof WriteRefused)) throw err
      const refused = new Set((err as WriteRefused<number>).refusals)
      if (refused.size === 0) throw err
      left = left.filter((_, i) => !refused.has(i))
    }
  }
}

/**
 * Takes many relayed items out of the pending index, and counts the catalog events among them
 * (event-counters.ts), in as few transactions as DynamoDB's limit allows: one round trip for a
 * stream batch instead of one per item. A mark holds only while its item is pending, so the stream
 * and the sweeper relaying the same item count it once.
 */
export async function markAllRelayed(relayed: readonly Relayed[], at: string): Promise<void> {
  // One transaction may not name an item twice.
  const unique = [...new Map(relayed.map((r) => [keyId(r.entry.key), r])).values()]
  for (const chunk of transactionChunks(unique, at)) await markChunk(chunk, at)
}

const Checkpoint = v.object({ sequence_number: v.string() })

/** Where the local stream relay resumes a shard after a restart (in AWS the event source keeps it). */
export async function getCheckpoint(shardId: string): Promise<string | undefined> {
  const p = relayParams.checkpoint(shardId)
  const item = await getItem(p.Key, { ConsistentRead: p.ConsistentRead })
  return item ? decodeItem('relay_checkpoint', Checkpoint, item).sequence_number : undefined
}

export async function putCheckpoint(shardId: string, sequenceNumber: string): Promise<void> {
  await putItem(relayParams.putCheckpoint(shardId, sequenceNumber))
}

/**
 * Notifications written before decision 0028 wait in their own pending partition, which no sweep
 * reads any more: the pending-notifications migration finds them with this filter.
 */
export const legacyPendingNotificationFilter = cond.eq(indexes.gsi1.pk, keys.pendingNotificationsPk)

/** One tenant's outbox items. */
export const outboxOfTenant = (tenantId: string) => cond.eq('tenant_id', tenantId)

export const moveLegacyPendingParams = (key: Key) => ({
  Key: key,
  ...updateExpression(
    { set: { [indexes.gsi1.pk]: keys.pendingOutboxPk } },
    cond.eq(indexes.gsi1.pk, keys.pendingNotificationsPk),
  ),
})

/**
 * Moves one such notification into the one pending index (its sort key, `<created_at>#<id>`, is
 * already that index's), where the sweep relays it; the write's stream record reaches the relay too.
 * @returns false when it is no longer there (relayed or moved meanwhile)
 */
export async function moveLegacyPendingNotification(key: Key): Promise<boolean> {
  return conditionally(updateItem(moveLegacyPendingParams(key)))
}
