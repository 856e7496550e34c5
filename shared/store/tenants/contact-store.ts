/** Contact requests: the product's own partition (no tenant), kept 180 days. */
import type { PutCommandInput, QueryCommandInput } from '@aws-sdk/lib-dynamodb'
import * as v from 'valibot'
import type { ContactRequest } from '../../domain/contact.ts'
import type { Notification } from '../../domain/events.ts'
import { putItem, queryUpTo } from '../core/db.ts'
import { decodeItem, nullable } from '../core/decode.ts'
import { cond, queryExpression } from '../core/expression.ts'
import { keys, TTL_ATTRIBUTE } from '../core/keys.ts'
import { contactNotificationPut } from '../outbox/outbox-items.ts'
import { commit } from '../core/transaction.ts'

const RETENTION_SECONDS = 180 * 86_400

const ContactItem = v.object({
  id: v.string(),
  name: v.string(),
  email: v.string(),
  company: nullable(v.string()),
  subject: nullable(v.string()),
  message: v.string(),
  received_at: v.string(),
})

export function contactPutParams(r: ContactRequest): Omit<PutCommandInput, 'TableName'> {
  return {
    Item: {
      ...keys.contactRequest(r.receivedAt, r.id),
      type: 'contact_request',
      id: r.id,
      name: r.name,
      email: r.email,
      company: r.company,
      subject: r.subject,
      message: r.message,
      received_at: r.receivedAt,
      [TTL_ATTRIBUTE]: Math.floor(Date.parse(r.receivedAt) / 1000) + RETENTION_SECONDS,
    },
  }
}

/** The request, and with it (in one transaction) its notification to the operators when there is one. */
export async function insertContactRequest(r: ContactRequest, notification?: Notification): Promise<void> {
  if (!notification) return putItem(contactPutParams(r))
  await commit([{ item: { Put: contactPutParams(r) } }, { item: contactNotificationPut(notification) }])
}

/** Newest first (the partition also holds the requests' outbox notifications). */
export function contactQueryParams(): Omit<QueryCommandInput, 'TableName'> {
  return {
    ...queryExpression({
      key: cond.and(cond.eq('pk', keys.contactPartition), cond.beginsWith('sk', keys.contactRequestPrefix)),
    }),
    ScanIndexForward: false,
  }
}

/** Newest first, up to `limit`. */
export async function listContactRequests(limit: number): Promise<ContactRequest[]> {
  return (await queryUpTo(contactQueryParams(), limit)).map((item) => {
    const c = decodeItem('contact request', ContactItem, item)
    return {
      id: c.id,
      name: c.name,
      email: c.email,
      company: c.company,
      subject: c.subject,
      message: c.message,
      receivedAt: c.received_at,
    }
  })
}
