/**
 * The transactional outbox's writer: a domain event or notification is an item written in the same
 * DynamoDB transaction as the change that causes it, so "saved" and "will be sent" can never
 * disagree. Both kinds wait in one sparse pending index until the relay has handed them on
 * (stream → relay → SQS → workers; the sweeper for anything the stream missed).
 */
import * as v from 'valibot'
import {
  eventTypes,
  notificationTemplates,
  type DomainEvent,
  type Effects,
  type Notification,
} from '../../domain/events.ts'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import type { Item, TransactItem } from '../core/db.ts'
import { nullable } from '../core/decode.ts'
import { defineEntity, field, optionalField } from '../core/entity.ts'
import { indexes, keys, TTL_ATTRIBUTE } from '../core/keys.ts'
import type { Step } from '../core/transaction.ts'
import { eventIndexAttributes } from './event-index-keys.ts'

/**
 * Outbox items outlive any relay backlog, then expire: 30 days after they were written (not after
 * `created_at`, which may be backdated), and again 30 days after their relay (`markRelayed`), since
 * the webhook worker may rebuild a delivery from its event while the message lives (decision 0028).
 */
const OUTBOX_RETENTION_SECONDS = 30 * 24 * 3600

/** The expiry of an outbox item written or relayed at `at`. */
export const outboxExpiry = (at: string): number =>
  Math.floor(Date.parse(at) / 1000) + OUTBOX_RETENTION_SECONDS

/** What every outbox item derives from its time and id: its pending entry and its expiry. */
const pending = (createdAt: string, id: string): Item => ({
  [indexes.gsi1.pk]: keys.pendingOutboxPk,
  [indexes.gsi1.sk]: keys.sortKey(createdAt, id),
  [TTL_ATTRIBUTE]: outboxExpiry(new Date().toISOString()),
})

const Data = v.record(v.string(), v.unknown())

/** An event's item (read back by shared/store/outbox/outbox-store.ts). */
export const outboxEventEntity = defineEntity(
  'event',
  {
    tenantId: field('tenant_id', v.string()),
    id: field('event_id', v.string()),
    event: field('event', v.picklist(eventTypes)),
    createdAt: field('created_at', v.string()),
    // Wall-clock time of the write (created_at may be backdated with --at): what decides whether
    // a record store connected later may receive it. Older items have none.
    recordedAt: optionalField('recorded_at', v.string()),
    data: field('data', Data),
    // Internal, never in `data`: whether the enrollment the event is about has an AGS link
    // (decision 0050), so the relay looks for one only then. Written for an enrollment's
    // change only; null on other events and on items written before.
    scoresLinked: optionalField('scores_linked', v.boolean()),
  },
  {
    key: (tenant: TenantContext, e) => keys.outboxEvent(tenant, e.createdAt, e.id),
    // A catalog event is also listed by the events API (event-index-keys.ts).
    derived: (tenant, e) => ({ ...pending(e.createdAt, e.id), ...eventIndexAttributes(tenant, e) }),
    reportAs: 'outbox_item',
  },
)

/** A notification's item: in its tenant's partition, or the platform's contact partition. */
export const outboxNotificationEntity = defineEntity(
  'notification',
  {
    // null (stored so) for the platform's own notifications, like a missing recipient user.
    tenantId: field('tenant_id', nullable(v.string())),
    id: field('notification_id', v.string()),
    template: field('template', v.picklist(notificationTemplates)),
    userId: field('user_id', nullable(v.string())),
    email: optionalField('email', v.string()),
    createdAt: field('created_at', v.string()),
    data: field('data', Data),
  },
  {
    key: (at: TenantContext | 'contact', n) =>
      at === 'contact' ? keys.contactOutbox(n.createdAt, n.id) : keys.outboxEvent(at, n.createdAt, n.id),
    derived: (_, n) => pending(n.createdAt, n.id),
    reportAs: 'outbox_item',
  },
)

/** What the writer of a change knows that the relay needs, beside the event itself. */
export interface RelayHints {
  readonly scoresLinked?: boolean
}

export function outboxPut(tenant: TenantContext, e: DomainEvent, hints: RelayHints = {}): TransactItem {
  const recordedAt = new Date().toISOString()
  const scoresLinked = hints.scoresLinked ?? null
  return {
    Put: { Item: outboxEventEntity.item(tenant, { ...e, tenantId: tenant.id, recordedAt, scoresLinked }) },
  }
}

export function notificationPut(tenant: TenantContext, n: Notification): TransactItem {
  return { Put: { Item: notificationItem(tenant, n) } }
}

/** A contact request's notification to the operators: in the platform's contact partition. */
export function contactNotificationPut(n: Notification): TransactItem {
  return { Put: { Item: notificationItem('contact', n) } }
}

function notificationItem(at: TenantContext | 'contact', n: Notification): Item {
  const tenantId = at === 'contact' ? null : at.id
  return outboxNotificationEntity.item(at, { ...n, tenantId, email: n.email ?? null })
}

/** The outbox steps of a change's effects (they carry no condition). */
export function effectSteps(tenant: TenantContext, effects: Effects, hints: RelayHints = {}): Step<never>[] {
  return [
    ...(effects.events ?? []).map((e) => ({ item: outboxPut(tenant, e, hints) })),
    ...(effects.notifications ?? []).map((n) => ({ item: notificationPut(tenant, n) })),
  ]
}
