/**
 * The transactional outbox's writer: a domain event or notification is an item written in the same
 * DynamoDB transaction as the change that causes it, so "saved" and "will be sent" can never
 * disagree. Both kinds wait in one sparse pending index until the relay has handed them on
 * (stream → relay → SQS → workers; the sweeper for anything the stream missed).
 */
import type { DomainEvent, Effects, Notification } from '../../domain/events.ts'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import type { Item, TransactItem } from '../core/db.ts'
import { indexes, keys, TTL_ATTRIBUTE, type Key } from '../core/keys.ts'
import type { Step } from '../core/transaction.ts'

/**
 * Outbox items outlive any relay backlog, then expire: 30 days after they were written (not after
 * `created_at`, which may be backdated), and again 30 days after their relay (`markRelayed`), since
 * the webhook worker may rebuild a delivery from its event while the message lives (decision 0028).
 */
const OUTBOX_RETENTION_SECONDS = 30 * 24 * 3600

/** The expiry of an outbox item written or relayed at `at`. */
export const outboxExpiry = (at: string): number =>
  Math.floor(Date.parse(at) / 1000) + OUTBOX_RETENTION_SECONDS

/** The attributes every outbox item has, whatever its kind: its key, its pending entry, its expiry. */
function outboxItem(key: Key, tenantId: string | null, createdAt: string, id: string, own: Item): Item {
  return {
    ...key,
    tenant_id: tenantId,
    created_at: createdAt,
    ...own,
    [indexes.gsi1.pk]: keys.pendingOutboxPk,
    [indexes.gsi1.sk]: keys.sortKey(createdAt, id),
    [TTL_ATTRIBUTE]: outboxExpiry(new Date().toISOString()),
  }
}

export function outboxPut(tenant: TenantContext, e: DomainEvent): TransactItem {
  const item = outboxItem(keys.outboxEvent(tenant, e.createdAt, e.id), tenant.id, e.createdAt, e.id, {
    type: 'event',
    event_id: e.id,
    event: e.event,
    // Wall-clock time of the write (created_at may be backdated with --at): what decides
    // whether a record store connected later may receive it.
    recorded_at: new Date().toISOString(),
    data: e.data,
  })
  return { Put: { Item: item } }
}

export function notificationPut(tenant: TenantContext, n: Notification): TransactItem {
  return { Put: { Item: notificationItem(keys.outboxEvent(tenant, n.createdAt, n.id), tenant.id, n) } }
}

/** A contact request's notification to the operators: in the platform's contact partition. */
export function contactNotificationPut(n: Notification): TransactItem {
  return { Put: { Item: notificationItem(keys.contactOutbox(n.createdAt, n.id), null, n) } }
}

function notificationItem(key: Key, tenantId: string | null, n: Notification): Item {
  return outboxItem(key, tenantId, n.createdAt, n.id, {
    type: 'notification',
    notification_id: n.id,
    template: n.template,
    user_id: n.userId,
    ...(n.email === undefined ? {} : { email: n.email }),
    data: n.data,
  })
}

/** The outbox steps of a change's effects (they carry no condition). */
export function effectSteps(tenant: TenantContext, effects: Effects): Step<never>[] {
  return [
    ...(effects.events ?? []).map((e) => ({ item: outboxPut(tenant, e) })),
    ...(effects.notifications ?? []).map((n) => ({ item: notificationPut(tenant, n) })),
  ]
}
