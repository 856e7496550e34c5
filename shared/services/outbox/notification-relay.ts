/**
 * Relaying outbox notifications: each goes, as it is, onto the notifications queue, then out of
 * its pending index. The stream relay does this as they are written; the sweeper does it for any
 * the stream has not relayed after a while. Both may queue the same notification: the worker sends
 * each notification once per recipient whatever the copies (shared/services/deliveries/mail-service.ts).
 */
import * as v from 'valibot'
import { config } from '../../config.ts'
import { notificationTemplates } from '../../domain/events.ts'
import { errorFields, log } from '../../log.ts'
import { sendMessage } from '../../queue/sqs.ts'
import {
  listPendingNotifications,
  markNotificationRelayed,
  type PendingNotification,
} from '../../store/outbox/notification-outbox-store.ts'

/** The notifications queue's message: the notification and the tenant it belongs to (null: none). */
export const NotificationMessage = v.object({
  tenantId: v.nullable(v.string()),
  notification: v.object({
    id: v.string(),
    template: v.picklist(notificationTemplates),
    userId: v.nullable(v.string()),
    email: v.optional(v.string()),
    createdAt: v.string(),
    data: v.record(v.string(), v.unknown()),
  }),
})
export type NotificationMessage = v.InferOutput<typeof NotificationMessage>

export async function relayNotification(
  p: PendingNotification,
  at = new Date().toISOString(),
): Promise<void> {
  const message: NotificationMessage = { tenantId: p.tenantId, notification: p.notification }
  await sendMessage(config.notificationsQueueUrl, message)
  await markNotificationRelayed(p.key, at)
  log('info', 'notification relayed', {
    notificationId: p.notification.id,
    template: p.notification.template,
    tenantId: p.tenantId,
  })
}

/** Relays notifications still pending after `outboxSweepAfterMs`, oldest first. @returns how many */
export async function sweepNotifications(now = Date.now(), limit = 100): Promise<number> {
  const before = new Date(now - config.outboxSweepAfterMs).toISOString()
  const { readable, unreadable } = await listPendingNotifications(before, limit)
  for (const err of unreadable) log('error', 'unreadable outbox notification not relayed', errorFields(err))
  for (const p of readable) await relayNotification(p)
  return readable.length
}
