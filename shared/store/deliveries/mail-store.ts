/**
 * What the notifications worker keeps: a marker per notification and recipient (the claim that
 * makes sending idempotent), the recipients it reads, and the local mail sink.
 *
 * A marker is claimed (status `sending`, with a lease) before the message is handed to the
 * transport and becomes `sent` after; a failed send releases it. A redelivered message finds it
 * `sent` and sends nothing; one that finds it `sending` under a live lease is in flight elsewhere
 * and comes back later; one that finds the lease run out (its worker died between claim and mark)
 * takes it over and sends: at least once, with a duplicate possible only when a worker died after
 * the transport accepted and before the marker was written (docs/decisions/0017-email.md).
 */
import { createHash } from 'node:crypto'
import type { PutCommandInput, QueryCommandInput } from '@aws-sdk/lib-dynamodb'
import * as v from 'valibot'
import { notificationTemplates } from '../../domain/events.ts'
import type { MailMessage } from '../../domain/notifications/mail.ts'
import { TENANT_CONTACT_ROLES } from '../../domain/notifications/recipients.ts'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import { locales, type User } from '../../domain/users/user.ts'
import { conditionally, deleteItem, getItem, putItem, queryAll, queryUpTo, updateItem } from '../core/db.ts'
import { decodeItem } from '../core/decode.ts'
import { defineEntity, field, optionalField } from '../core/entity.ts'
import { cond, conditionExpression, queryExpression, updateExpression } from '../core/expression.ts'
import { keys, TTL_ATTRIBUTE, type Key } from '../core/keys.ts'
import { toUser, usersBy } from '../users/users-store.ts'

/** How long a claim holds: past the worker's 30 s timeout, short of the queue's 180 s visibility. */
export const MAIL_CLAIM_LEASE_MS = 90_000
/** Markers outlive every redelivery: SQS keeps a message 14 days, the outbox its items 30. */
const MARKER_RETENTION_SECONDS = 35 * 86_400
/** The sink is a local stand-in: a week of mail is plenty to read back. */
const SINK_RETENTION_SECONDS = 7 * 86_400

const epochSeconds = (at: string, plus: number) => Math.floor(Date.parse(at) / 1000) + plus

/** The partition a notification's markers live in: its tenant's, or the platform's contact partition. */
export const markerPartition = (tenantId: string | null): string =>
  tenantId === null ? keys.contactPartition : keys.tenantPartition({ id: tenantId })

/** Addresses are keyed by a digest: markers hold no address. */
export function recipientMarkerKey(recipientKey: string): string {
  if (!recipientKey.startsWith('email:')) return recipientKey
  return `email-${createHash('sha256').update(recipientKey).digest('hex').slice(0, 32)}`
}

export interface MarkerRef {
  readonly partition: string
  readonly notificationId: string
  readonly recipientKey: string
}

const markerKey = (m: MarkerRef): Key =>
  keys.mailMarker(m.partition, m.notificationId, recipientMarkerKey(m.recipientKey))

export const markerParams = {
  /** Taken when absent, or when a `sending` claim's lease ran out before `at`. */
  claim: (m: MarkerRef, token: string, at: string): Omit<PutCommandInput, 'TableName'> => ({
    Item: {
      ...markerKey(m),
      type: 'mail_marker',
      status: 'sending',
      token,
      claimed_at: at,
      lease_until: new Date(Date.parse(at) + MAIL_CLAIM_LEASE_MS).toISOString(),
      [TTL_ATTRIBUTE]: epochSeconds(at, MARKER_RETENTION_SECONDS),
    },
    ...conditionExpression(
      cond.or(cond.notExists(), cond.and(cond.eq('status', 'sending'), cond.lt('lease_until', at))),
    ),
  }),
  get: (m: MarkerRef) => ({ Key: markerKey(m), ConsistentRead: true }),
  /** Only the claim's holder marks it sent. */
  sent: (m: MarkerRef, token: string, at: string, messageId: string) => ({
    Key: markerKey(m),
    ...updateExpression(
      { set: { status: 'sent', sent_at: at, message_id: messageId }, remove: ['lease_until'] },
      cond.eq('token', token),
    ),
  }),
  /** The transport refused the message for good: it is done, and not sent. */
  rejected: (m: MarkerRef, token: string, at: string, reason: string) => ({
    Key: markerKey(m),
    ...updateExpression(
      { set: { status: 'rejected', rejected_at: at, reason }, remove: ['lease_until'] },
      cond.eq('token', token),
    ),
  }),
  /** A send that failed gives its claim back at once, so the retry need not wait for the lease. */
  release: (m: MarkerRef, token: string) => ({
    Key: markerKey(m),
    ...conditionExpression(cond.and(cond.eq('token', token), cond.eq('status', 'sending'))),
  }),
  skipped: (m: MarkerRef, reason: string, at: string): Omit<PutCommandInput, 'TableName'> => ({
    Item: {
      ...markerKey(m),
      type: 'mail_marker',
      status: 'skipped',
      reason,
      skipped_at: at,
      [TTL_ATTRIBUTE]: epochSeconds(at, MARKER_RETENTION_SECONDS),
    },
    ...conditionExpression(cond.notExists()),
  }),
}

const Marker = v.object({ status: v.picklist(['sending', 'sent', 'skipped', 'rejected']) })

export type ClaimOutcome = 'claimed' | 'sent' | 'skipped' | 'rejected' | 'in_flight'

export async function claimMarker(m: MarkerRef, token: string, at: string): Promise<ClaimOutcome> {
  if (await conditionally(putItem(markerParams.claim(m, token, at)))) return 'claimed'
  const p = markerParams.get(m)
  const item = await getItem(p.Key, { ConsistentRead: p.ConsistentRead })
  // Gone between the two reads (it was released): another copy is retrying it right now.
  if (!item) return 'in_flight'
  const { status } = decodeItem('mail_marker', Marker, item)
  return status === 'sending' ? 'in_flight' : status
}

/** @returns false when the claim was taken over meanwhile (the lease ran out) */
export function markSent(m: MarkerRef, token: string, at: string, messageId: string): Promise<boolean> {
  return conditionally(updateItem(markerParams.sent(m, token, at, messageId)))
}

export function markRejected(m: MarkerRef, token: string, at: string, reason: string): Promise<boolean> {
  return conditionally(updateItem(markerParams.rejected(m, token, at, reason)))
}

export async function releaseMarker(m: MarkerRef, token: string): Promise<void> {
  await conditionally(deleteItem(markerParams.release(m, token)))
}

/** @returns false when the recipient already has a marker (sent, skipped or in flight) */
export function markSkipped(m: MarkerRef, reason: string, at: string): Promise<boolean> {
  return conditionally(putItem(markerParams.skipped(m, reason, at)))
}

/** The tenant's active owners and admins: read from its users index, filtered by role. */
export function tenantContactsQueryParams(tenant: TenantContext): Omit<QueryCommandInput, 'TableName'> {
  return {
    IndexName: usersBy.created.name,
    ...queryExpression({
      key: cond.eq(usersBy.created.pk, keys.usersIndexPk(tenant)),
      filter: cond.and(cond.oneOf('role', [...TENANT_CONTACT_ROLES]), cond.eq('is_active', true)),
    }),
  }
}

export async function listTenantContacts(tenant: TenantContext): Promise<User[]> {
  return (await queryAll(tenantContactsQueryParams(tenant))).map(toUser)
}

/** A message in the local sink, as `lms mail list` prints it. */
export interface SinkMail {
  readonly id: string
  readonly tenantId: string | null
  readonly to: string
  readonly subject: string
  readonly template: MailMessage['template']
  readonly locale: MailMessage['locale']
  readonly text: string
  readonly html: string
  readonly notificationId: string
  readonly sentAt: string
}

/** The recipient is matched ignoring case; a week of mail is kept (the sink is a local stand-in). */
const sinkEntity = defineEntity(
  'mail_sink',
  {
    id: field('id', v.string()),
    tenantId: optionalField('tenant_id', v.string()),
    to: field('to', v.string()),
    subject: field('subject', v.string()),
    template: field('template', v.picklist(notificationTemplates)),
    locale: field('locale', v.picklist(locales)),
    text: field('text', v.string()),
    html: field('html', v.string()),
    notificationId: field('notification_id', v.string()),
    sentAt: field('sent_at', v.string()),
  },
  {
    key: (_: null, m) => keys.mailSink(m.sentAt, m.id),
    derived: (_, m) => ({
      to_lower: m.to.toLowerCase(),
      [TTL_ATTRIBUTE]: epochSeconds(m.sentAt, SINK_RETENTION_SECONDS),
    }),
  },
)

export function sinkPutParams(mail: SinkMail): Omit<PutCommandInput, 'TableName'> {
  return { Item: sinkEntity.item(null, mail) }
}

export async function putSinkMail(mail: SinkMail): Promise<void> {
  await putItem(sinkPutParams(mail))
}

export interface SinkFilter {
  readonly tenantId?: string
  readonly to?: string
  readonly template?: string
}

/** Newest first, filtered by tenant, recipient (any case) and template. */
export function sinkQueryParams(f: SinkFilter): Omit<QueryCommandInput, 'TableName'> {
  const filters = [
    ...(f.tenantId === undefined ? [] : [cond.eq('tenant_id', f.tenantId)]),
    ...(f.to === undefined ? [] : [cond.eq('to_lower', f.to.toLowerCase())]),
    ...(f.template === undefined ? [] : [cond.eq('template', f.template)]),
  ]
  return {
    ...queryExpression({
      key: cond.eq('pk', keys.mailSinkPartition),
      ...(filters.length > 0 ? { filter: cond.and(...filters) } : {}),
    }),
    ScanIndexForward: false,
    ConsistentRead: true,
  }
}

export async function listSinkMail(f: SinkFilter, limit = 1000): Promise<SinkMail[]> {
  return (await queryUpTo(sinkQueryParams(f), limit)).map((item) => sinkEntity.decode(item))
}
