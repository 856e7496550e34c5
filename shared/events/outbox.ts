/**
 * The transactional outbox: a domain event is an item written in the same DynamoDB transaction as
 * the change that causes it, so "saved" and "will be sent" can never disagree. Delivery (stream →
 * relay → SQS → workers) reads these items downstream.
 */
import { randomUUID } from 'node:crypto'
import type { TenantContext } from '../domain/tenants/tenant.ts'
import type { TransactItem } from '../store/db.ts'
import { indexes, keys, TTL_ATTRIBUTE } from '../store/keys.ts'

export type EventType =
  | 'user.created'
  | 'user.deactivated'
  | 'user.reactivated'
  | 'enrollment.created'
  | 'enrollment.completed'
  | 'enrollment.dropped'
  | 'course.published'
  | 'course.archived'
  | 'certificate.issued'
  | 'job_role.assigned'
  | 'skill.attained'
  // Internal: learning activity for statement export; not in the webhook catalog.
  | 'module.completed'
  | 'quiz_attempt.graded'
  | 'cmi5.launched'
  | 'cmi5.statement'

export interface DomainEvent {
  readonly id: string
  readonly event: EventType
  readonly createdAt: string
  readonly data: Record<string, unknown>
}

/** Outbox items outlive any relay backlog, then expire. */
const OUTBOX_RETENTION_SECONDS = 30 * 24 * 3600

export function newEvent(event: EventType, data: Record<string, unknown>, now: string): DomainEvent {
  return { id: randomUUID(), event, createdAt: now, data }
}

/** The Put to add to the transaction that makes the change. */
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
        [TTL_ATTRIBUTE]: Math.floor(Date.parse(e.createdAt) / 1000) + OUTBOX_RETENTION_SECONDS,
      },
    },
  }
}

/**
 * A message to a person (e-mail later), recorded in the outbox with the change that causes it:
 * the enrollment confirmation is "always sent", so it is written in the enrollment's transaction.
 */
export interface Notification {
  readonly id: string
  readonly template: 'enrollment_confirmation' | 'usage_alert'
  /** The recipient; null for a notice to the tenant's owners and admins (resolved when sent). */
  readonly userId: string | null
  readonly createdAt: string
  readonly data: Record<string, unknown>
}

export function newNotification(
  template: Notification['template'],
  userId: string | null,
  data: Record<string, unknown>,
  now: string,
): Notification {
  return { id: randomUUID(), template, userId, createdAt: now, data }
}

export function notificationPut(tenant: TenantContext, n: Notification): TransactItem {
  return {
    Put: {
      Item: {
        ...keys.outboxEvent(tenant, n.createdAt, n.id),
        type: 'notification',
        tenant_id: tenant.id,
        notification_id: n.id,
        template: n.template,
        user_id: n.userId,
        created_at: n.createdAt,
        data: n.data,
        [TTL_ATTRIBUTE]: Math.floor(Date.parse(n.createdAt) / 1000) + OUTBOX_RETENTION_SECONDS,
      },
    },
  }
}
