/**
 * Sending a notification: resolve its recipients now (a named user, the tenant's active owners and
 * admins, or an explicit address), then for each one claim its marker, render in the recipient's
 * locale, hand the message to the transport and mark it sent (shared/store/deliveries/mail-store.ts). A
 * redelivered message finds its recipients marked and sends nothing twice; a recipient whose send
 * failed is retried with the message (SQS hands it back), the others are not sent again.
 * Log lines name ids, templates and outcomes: never an address, a name or a body.
 */
import { randomUUID } from 'node:crypto'
import * as v from 'valibot'
import { config } from '../../config.ts'
import { notificationTemplates } from '../../domain/events.ts'
import type { MailSender } from '../../domain/notifications/mail.ts'
import {
  addresseeOf,
  addressRecipient,
  tenantContactRecipients,
  userRecipient,
  type MailRecipient,
  type SkipReason,
} from '../../domain/notifications/recipients.ts'
import { renderNotification } from '../../domain/notifications/render.ts'
import type { Tenant } from '../../domain/tenants/tenant.ts'
import { log } from '../../log.ts'
import { MailTransportError } from '../../mail/ses-sender.ts'
import {
  claimMarker,
  listSinkMail,
  listTenantContacts,
  markerPartition,
  markRejected,
  markSent,
  markSkipped,
  recipientMarkerKey,
  releaseMarker,
  type MarkerRef,
  type SinkFilter,
  type SinkMail,
} from '../../store/deliveries/mail-store.ts'
import { tenantById } from '../tenants/tenant-cache.ts'
import { getUser } from '../../store/users/users-store.ts'
import { sendMessage } from '../../queue/sqs.ts'
import type { PendingNotification } from '../../store/outbox/outbox-store.ts'

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

/**
 * The relay's hand-on of an outbox notification: onto the notifications queue as it is. The relay
 * and the sweeper may both queue it: each recipient's marker sends it once whatever the copies.
 */
export async function queueNotification(p: PendingNotification): Promise<void> {
  const message: NotificationMessage = { tenantId: p.tenantId, notification: p.notification }
  await sendMessage(config.notificationsQueueUrl, message)
}

/** Another copy of the message holds this recipient's claim: this copy comes back later. */
export class MailInFlight extends Error {
  constructor() {
    super('Another delivery of this notification is sending it')
    this.name = 'MailInFlight'
  }
}

/** Some recipients could not be sent to now; the message comes back for them. */
export class MailNotSent extends Error {
  constructor(
    failed: number,
    first: unknown,
    /** Recipients of the same notification that were sent before the message comes back. */
    readonly sent = 0,
  ) {
    super(`${failed} recipient(s) not sent: ${first instanceof Error ? first.name : 'unknown error'}`)
    this.name = 'MailNotSent'
  }
}

type Resolved = {
  readonly recipients: MailRecipient[]
  readonly skipped: { key: string; reason: SkipReason }[]
}

async function resolveRecipients(msg: NotificationMessage, tenant: Tenant | undefined): Promise<Resolved> {
  const n = msg.notification
  const to = addresseeOf(n)
  if (to.kind === 'address') return { recipients: [addressRecipient(to.address, n.data)], skipped: [] }
  if (!tenant) return { recipients: [], skipped: [] }
  if (to.kind === 'user') {
    const r = userRecipient(await getUser(tenant, to.userId, { consistent: true }))
    return typeof r === 'string'
      ? { recipients: [], skipped: [{ key: to.userId, reason: r }] }
      : { recipients: [r], skipped: [] }
  }
  return { recipients: tenantContactRecipients(await listTenantContacts(tenant)), skipped: [] }
}

export async function sendNotification(
  msg: NotificationMessage,
  sender: MailSender,
  at = new Date().toISOString(),
): Promise<number> {
  const n = msg.notification
  const ids = { notificationId: n.id, template: n.template, tenantId: msg.tenantId }
  const tenant = msg.tenantId === null ? undefined : await tenantById(msg.tenantId)
  if (msg.tenantId !== null && !tenant) {
    log('info', 'notification not sent', { ...ids, reason: 'tenant_missing' })
    return 0
  }
  const { recipients, skipped } = await resolveRecipients(msg, tenant)
  const partition = markerPartition(msg.tenantId)
  const ref = (recipientKey: string): MarkerRef => ({ partition, notificationId: n.id, recipientKey })
  for (const s of skipped) {
    await markSkipped(ref(s.key), s.reason, at)
    log('info', 'mail skipped', { ...ids, recipient: s.key, reason: s.reason })
  }
  if (recipients.length === 0 && skipped.length === 0) log('info', 'notification has no recipient', ids)
  const failures: unknown[] = []
  let sent = 0
  for (const r of recipients) {
    try {
      if (await sendTo(msg, tenant, r, ref(r.key), sender, at)) sent++
    } catch (err) {
      failures.push(err)
    }
  }
  if (failures.length > 0) throw new MailNotSent(failures.length, failures[0], sent)
  return sent
}

async function sendTo(
  msg: NotificationMessage,
  tenant: Tenant | undefined,
  r: MailRecipient,
  ref: MarkerRef,
  sender: MailSender,
  at: string,
): Promise<boolean> {
  const n = msg.notification
  const fields = {
    notificationId: n.id,
    template: n.template,
    tenantId: msg.tenantId,
    recipient: recipientMarkerKey(r.key),
    locale: r.locale,
  }
  const token = randomUUID()
  const claim = await claimMarker(ref, token, at)
  if (claim === 'in_flight') throw new MailInFlight()
  if (claim !== 'claimed') return false
  let messageId: string
  try {
    const mail = renderNotification(n.template, n.data, r.locale, {
      name: r.name,
      tenantName: tenant?.name ?? null,
    })
    messageId = (
      await sender.send(
        {
          ...mail,
          to: r.address,
          template: n.template,
          locale: r.locale,
          notificationId: n.id,
          tenantId: msg.tenantId,
        },
        at,
      )
    ).messageId
  } catch (err) {
    if (err instanceof MailTransportError && err.permanent) {
      await markRejected(ref, token, at, err.transportError)
      log('error', 'mail rejected', { ...fields, transportError: err.transportError })
      return false
    }
    await releaseMarker(ref, token)
    log('error', 'mail not sent', { ...fields, errorName: err instanceof Error ? err.name : 'unknown' })
    throw err
  }
  if (!(await markSent(ref, token, at, messageId))) {
    log('error', 'mail claim was taken over while sending', fields)
  }
  log('info', 'mail sent', fields)
  return true
}

/** What the local sink holds, newest first (`lms mail list`). */
export function listSentMail(filter: SinkFilter): Promise<SinkMail[]> {
  return listSinkMail(filter)
}
