/** Reading the outbox: the relay (and tests) see what a change wrote next to it. */
import type { QueryCommandInput } from '@aws-sdk/lib-dynamodb'
import * as v from 'valibot'
import {
  eventTypes,
  notificationTemplates,
  type DomainEvent,
  type Notification,
} from '../../domain/events.ts'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import { conditionally, getItem, putItem, queryUpTo, queryAll, updateItem, type Item } from '../core/db.ts'
import { decodeEach, decodeItem, nullable } from '../core/decode.ts'
import { cond, queryExpression, updateExpression } from '../core/expression.ts'
import { indexes, keys } from '../core/keys.ts'
import { effectSteps } from './outbox-items.ts'
import { MalformedItem, WriteRefused } from '../core/store-errors.ts'
import { commit, MAX_TRANSACTION_ITEMS } from '../core/transaction.ts'

const NotificationItem = v.object({
  type: v.literal('notification'),
  notification_id: v.string(),
  template: v.picklist(notificationTemplates),
  user_id: nullable(v.string()),
  email: v.optional(v.string()),
  created_at: v.string(),
  data: v.record(v.string(), v.unknown()),
})

/** A tenant's outbox items (events and notifications), oldest first. */
export function outboxQueryParams(tenant: TenantContext): Omit<QueryCommandInput, 'TableName'> {
  return {
    ...queryExpression({
      key: cond.and(cond.eq('pk', keys.tenantPartition(tenant)), cond.beginsWith('sk', keys.outboxPrefix)),
    }),
    ConsistentRead: true,
  }
}

const outboxItems = (tenant: TenantContext) => queryAll(outboxQueryParams(tenant))

/** An event that is the whole change (nothing else to write with it). */
export async function appendEvent(tenant: TenantContext, e: DomainEvent): Promise<void> {
  await commit(effectSteps(tenant, { events: [e] }))
}

export async function listOutboxEvents(tenant: TenantContext): Promise<DomainEvent[]> {
  return (await outboxItems(tenant)).filter((i) => i.type === 'event').map((i) => toPendingEvent(i).event)
}

export async function listOutboxNotifications(tenant: TenantContext): Promise<Notification[]> {
  const items = (await outboxItems(tenant)).filter((i) => i.type === 'notification')
  return items.map((item) => {
    const n = decodeItem('outbox_notification', NotificationItem, item)
    return {
      id: n.notification_id,
      template: n.template,
      userId: n.user_id,
      ...(n.email === undefined ? {} : { email: n.email }),
      createdAt: n.created_at,
      data: n.data,
    }
  })
}

export interface PendingEvent {
  readonly tenantId: string
  readonly event: DomainEvent
  /** When the change was saved (wall clock); older items fall back to their event time. */
  readonly recordedAt: string
}

/** An outbox event item as the relay reads it (shared/store/outbox/outbox-items.ts writes it). */
export const OutboxEventItem = v.object({
  type: v.literal('event'),
  tenant_id: v.string(),
  event_id: v.string(),
  event: v.picklist(eventTypes),
  created_at: v.string(),
  recorded_at: v.optional(v.string()),
  data: v.record(v.string(), v.unknown()),
})

/** @throws MalformedItem naming the item's key, never a value */
export function toPendingEvent(item: Item): PendingEvent {
  const e = decodeItem('outbox_event', OutboxEventItem, item)
  return {
    tenantId: e.tenant_id,
    recordedAt: e.recorded_at ?? e.created_at,
    event: { id: e.event_id, event: e.event, createdAt: e.created_at, data: e.data },
  }
}

export const relayParams = {
  /** Events written before `before` still in the sparse pending index, oldest first. */
  pending: (before: string, limit: number) => ({
    IndexName: indexes.gsi1.name,
    ...queryExpression({
      key: cond.and(cond.eq(indexes.gsi1.pk, keys.pendingOutboxPk), cond.lt(indexes.gsi1.sk, before)),
    }),
    Limit: limit,
  }),

  /**
   * Out of the pending index, with how many webhook deliveries its fan-out queued (their rows are
   * written by the worker's first claim: decision 0015); refused when the event is gone (expired).
   */
  markRelayed: (
    tenantId: string,
    e: Pick<DomainEvent, 'id' | 'createdAt'>,
    at: string,
    deliveries?: number,
  ) => ({
    Key: keys.outboxEvent({ id: tenantId }, e.createdAt, e.id),
    ...updateExpression(
      {
        set: { relayed_at: at, ...(deliveries === undefined ? {} : { relayed_deliveries: deliveries }) },
        remove: [indexes.gsi1.pk, indexes.gsi1.sk],
      },
      cond.exists(),
    ),
  }),

  checkpoint: (shardId: string) => ({ Key: keys.relayCheckpoint(shardId), ConsistentRead: true }),

  putCheckpoint: (shardId: string, sequenceNumber: string) => ({
    Item: { ...keys.relayCheckpoint(shardId), type: 'relay_checkpoint', sequence_number: sequenceNumber },
  }),
}

/**
 * Outbox events still waiting to be relayed that were written before `before` (oldest first). An
 * item that does not read as an event is handed back as its MalformedItem error, so it is reported
 * without holding up the events behind it.
 */
export async function listPendingEvents(
  before: string,
  limit: number,
): Promise<{ readable: PendingEvent[]; unreadable: MalformedItem[] }> {
  return decodeEach(await queryUpTo(relayParams.pending(before, limit), limit), toPendingEvent)
}

/** Takes a relayed event out of the pending index. */
export async function markRelayed(
  tenantId: string,
  e: DomainEvent,
  at: string,
  deliveries?: number,
): Promise<void> {
  await conditionally(updateItem(relayParams.markRelayed(tenantId, e, at, deliveries)))
}

/**
 * Takes many relayed events out of the pending index, up to 100 in one transaction: one round
 * trip for a stream batch instead of one per event. Each update keeps its condition; when one
 * fails (an event gone meanwhile), that transaction's events are marked one by one, as
 * `markRelayed` does, so the others are not held up by it.
 */
export async function markAllRelayed(
  events: readonly (Pick<PendingEvent, 'tenantId' | 'event'> & { readonly deliveries?: number })[],
  at: string,
): Promise<void> {
  // One transaction may not name an item twice.
  const unique = [
    ...new Map(events.map((p) => [`${p.tenantId} ${p.event.createdAt} ${p.event.id}`, p])).values(),
  ]
  for (let i = 0; i < unique.length; i += MAX_TRANSACTION_ITEMS) {
    const chunk = unique.slice(i, i + MAX_TRANSACTION_ITEMS)
    // A transaction costs twice the write units of a plain update: alone, an event takes the update.
    const [only] = chunk
    if (chunk.length === 1 && only) {
      await markRelayed(only.tenantId, only.event, at, only.deliveries)
      continue
    }
    try {
      await commit(
        chunk.map((p) => ({
          item: { Update: relayParams.markRelayed(p.tenantId, p.event, at, p.deliveries) },
        })),
      )
    } catch (err) {
      if (!(err instanceof WriteRefused)) throw err
      for (const p of chunk) await markRelayed(p.tenantId, p.event, at, p.deliveries)
    }
  }
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
