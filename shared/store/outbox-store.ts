/** Reading the outbox: the relay (and tests) see what a change wrote next to it. */
import type { TenantContext } from '../domain/tenants/tenant.ts'
import { type DomainEvent, type EventType, type Notification } from '../domain/events.ts'
import { outboxPut } from './outbox-items.ts'
import {
  getItem,
  isConditionalCheckFailed,
  putItem,
  queryUpTo,
  queryAll,
  transact,
  updateItem,
  type Item,
} from './db.ts'
import { indexes, keys } from './keys.ts'

function outboxItems(tenant: TenantContext) {
  return queryAll({
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :sk)',
    ExpressionAttributeValues: { ':pk': keys.tenantPartition(tenant), ':sk': keys.outboxPrefix },
    ConsistentRead: true,
  })
}

/** An event that is the whole change (nothing else to write with it). */
export async function appendEvent(tenant: TenantContext, e: DomainEvent): Promise<void> {
  await transact([outboxPut(tenant, e)])
}

export async function listOutboxEvents(tenant: TenantContext): Promise<DomainEvent[]> {
  const items = (await outboxItems(tenant)).filter((i) => i.type === 'event')
  return items.map((i) => ({
    id: i.event_id as string,
    event: i.event as EventType,
    createdAt: i.created_at as string,
    data: i.data as Record<string, unknown>,
  }))
}

export async function listOutboxNotifications(tenant: TenantContext): Promise<Notification[]> {
  const items = (await outboxItems(tenant)).filter((i) => i.type === 'notification')
  return items.map((i) => ({
    id: i.notification_id as string,
    template: i.template as Notification['template'],
    userId: (i.user_id as string | null | undefined) ?? null,
    createdAt: i.created_at as string,
    data: i.data as Record<string, unknown>,
  }))
}

export interface PendingEvent {
  readonly tenantId: string
  readonly event: DomainEvent
  /** When the change was saved (wall clock); older items fall back to their event time. */
  readonly recordedAt: string
}

export function toPendingEvent(item: Item): PendingEvent {
  return {
    tenantId: item.tenant_id as string,
    recordedAt: (item.recorded_at as string | undefined) ?? (item.created_at as string),
    event: {
      id: item.event_id as string,
      event: item.event as EventType,
      createdAt: item.created_at as string,
      data: item.data as Record<string, unknown>,
    },
  }
}

/** Outbox events still waiting to be relayed that were written before `before` (oldest first). */
export async function listPendingEvents(before: string, limit: number): Promise<PendingEvent[]> {
  const items = await queryUpTo(
    {
      IndexName: indexes.gsi1.name,
      KeyConditionExpression: '#pk = :pk AND #sk < :before',
      ExpressionAttributeNames: { '#pk': indexes.gsi1.pk, '#sk': indexes.gsi1.sk },
      ExpressionAttributeValues: { ':pk': keys.pendingOutboxPk, ':before': before },
      Limit: limit,
    },
    limit,
  )
  return items.map(toPendingEvent)
}

/** Takes a relayed event out of the pending index. */
export async function markRelayed(tenantId: string, e: DomainEvent, at: string): Promise<void> {
  try {
    await updateItem({
      Key: keys.outboxEvent({ id: tenantId }, e.createdAt, e.id),
      UpdateExpression: 'SET relayed_at = :at REMOVE #pk, #sk',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: { '#pk': indexes.gsi1.pk, '#sk': indexes.gsi1.sk },
      ExpressionAttributeValues: { ':at': at },
    })
  } catch (err) {
    if (!isConditionalCheckFailed(err)) throw err
  }
}

/** Where the local stream relay resumes a shard after a restart (in AWS the event source keeps it). */
export async function getCheckpoint(shardId: string): Promise<string | undefined> {
  const item = await getItem(keys.relayCheckpoint(shardId), { ConsistentRead: true })
  return item?.sequence_number as string | undefined
}

export async function putCheckpoint(shardId: string, sequenceNumber: string): Promise<void> {
  await putItem({
    Item: { ...keys.relayCheckpoint(shardId), type: 'relay_checkpoint', sequence_number: sequenceNumber },
  })
}
