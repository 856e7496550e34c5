/**
 * The relay's side of outbox notifications: reading one from the stream or the pending index, and
 * taking it out of that index once it is on the notifications queue. A notification lives in its
 * tenant's partition, or in the platform's contact partition for a contact request (no tenant).
 */
import * as v from 'valibot'
import { notificationTemplates, type Notification } from '../../domain/events.ts'
import { conditionally, queryUpTo, updateItem, type Item } from '../core/db.ts'
import { decodeEach, decodeItem, nullable } from '../core/decode.ts'
import { cond, queryExpression, updateExpression } from '../core/expression.ts'
import { indexes, keys, type Key } from '../core/keys.ts'
import { MalformedItem } from '../core/store-errors.ts'

export interface PendingNotification {
  /** The outbox item's key: where it is marked relayed. */
  readonly key: Key
  /** null for the platform's own notifications (contact requests). */
  readonly tenantId: string | null
  readonly notification: Notification
}

export const OutboxNotificationItem = v.object({
  pk: v.string(),
  sk: v.string(),
  type: v.literal('notification'),
  tenant_id: nullable(v.string()),
  notification_id: v.string(),
  template: v.picklist(notificationTemplates),
  user_id: nullable(v.string()),
  email: v.optional(v.string()),
  created_at: v.string(),
  data: v.record(v.string(), v.unknown()),
})

/** @throws MalformedItem naming the item's key, never a value */
export function toPendingNotification(item: Item): PendingNotification {
  const n = decodeItem('outbox_notification', OutboxNotificationItem, item)
  return {
    key: { pk: n.pk, sk: n.sk },
    tenantId: n.tenant_id,
    notification: {
      id: n.notification_id,
      template: n.template,
      userId: n.user_id,
      ...(n.email === undefined ? {} : { email: n.email }),
      createdAt: n.created_at,
      data: n.data,
    },
  }
}

export const notificationRelayParams = {
  /** Notifications written before `before` still in their pending index, oldest first. */
  pending: (before: string, limit: number) => ({
    IndexName: indexes.gsi1.name,
    ...queryExpression({
      key: cond.and(cond.eq(indexes.gsi1.pk, keys.pendingNotificationsPk), cond.lt(indexes.gsi1.sk, before)),
    }),
    Limit: limit,
  }),

  /** Out of the pending index; refused when the item is gone (expired). */
  markRelayed: (key: Key, at: string) => ({
    Key: key,
    ...updateExpression(
      { set: { relayed_at: at }, remove: [indexes.gsi1.pk, indexes.gsi1.sk] },
      cond.exists(),
    ),
  }),
}

export async function listPendingNotifications(
  before: string,
  limit: number,
): Promise<{ readable: PendingNotification[]; unreadable: MalformedItem[] }> {
  return decodeEach(
    await queryUpTo(notificationRelayParams.pending(before, limit), limit),
    toPendingNotification,
  )
}

export async function markNotificationRelayed(key: Key, at: string): Promise<void> {
  await conditionally(updateItem(notificationRelayParams.markRelayed(key, at)))
}
