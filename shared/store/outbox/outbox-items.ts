/**
 * The transactional outbox's writer: a domain event or notification is an item written in the same
 * DynamoDB transaction as the change that causes it, so "saved" and "will be sent" can never
 * disagree. Delivery (stream → relay → SQS → workers) reads these items downstream.
 */
import type { DomainEvent, Effects, Notification } from '../../domain/events.ts'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import type { TransactItem } from '../core/db.ts'
import { indexes, keys, TTL_ATTRIBUTE, type Key } from '../core/keys.ts'
import type { Step } from '../core/transaction.ts'

/** Outbox items outlive any relay backlog, then expire. */
const OUTBOX_RETENTION_SECONDS = 30 * 24 * 3600

const expiry = (createdAt: string) => Math.floor(Date.parse(createdAt) / 1000) + OUTBOX_RETENTION_SECONDS

export function outboxPut(tenant: TenantContext, e: DomainEvent): TransactItem {
  return {
    Put: {
      Item: {
        ...keys.outboxEvent(tenant, e.createdAt, e.id),
        type: 'event',
        tenant_id: tenant.id,
        event_id: e.id,
        event: e.event,
        created_at: e.createdAt,
        // Wall-clock time of the write (created_at may be backdated with --at): what decides
        // whether a record store connected later may receive it.
        recorded_at: new Date().toISOString(),
        data: e.data,
        [indexes.gsi1.pk]: keys.pendingOutboxPk,
        [indexes.gsi1.sk]: keys.sortKey(e.createdAt, e.id),
        [TTL_ATTRIBUTE]: expiry(e.createdAt),
      },
    },
  }
}

export function notificationPut(tenant: TenantContext, n: Notification): TransactItem {
  return { Put: { Item: notificationItem(keys.outboxEvent(tenant, n.createdAt, n.id), tenant.id, n) } }
}

/** A contact request's notification to the operators: in the platform's contact partition. */
export function contactNotificationPut(n: Notification): TransactItem {
  return { Put: { Item: notificationItem(keys.contactOutbox(n.createdAt, n.id), null, n) } }
}

/**
 * A notification waits in its own sparse pending index (as events do in theirs) until the relay
 * has queued it, so the sweeper sends what the stream never relayed.
 */
function notificationItem(key: Key, tenantId: string | null, n: Notification) {
  return {
    ...key,
    type: 'notification',
    tenant_id: tenantId,
    notification_id: n.id,
    template: n.template,
    user_id: n.userId,
    ...(n.email === undefined ? {} : { email: n.email }),
    created_at: n.createdAt,
    data: n.data,
    [indexes.gsi1.pk]: keys.pendingNotificationsPk,
    [indexes.gsi1.sk]: keys.sortKey(n.createdAt, n.id),
    [TTL_ATTRIBUTE]: expiry(n.createdAt),
  }
}

/** The outbox steps of a change's effects (they carry no condition). */
export function effectSteps(tenant: TenantContext, effects: Effects): Step<never>[] {
  return [
    ...(effects.events ?? []).map((e) => ({ item: outboxPut(tenant, e) })),
    ...(effects.notifications ?? []).map((n) => ({ item: notificationPut(tenant, n) })),
  ]
}

/** The outbox items of a change's effects, for stores not yet written as steps. */
export function effectItems(tenant: TenantContext, effects: Effects): TransactItem[] {
  return effectSteps(tenant, effects).map((s) => s.item)
}
