/** Contact requests: the product's own partition (no tenant), kept 180 days. */
import type { PutCommandInput, QueryCommandInput } from '@aws-sdk/lib-dynamodb'
import * as v from 'valibot'
import type { ContactRequest } from '../../domain/contact.ts'
import type { Notification } from '../../domain/events.ts'
import { putItem, queryUpTo } from '../core/db.ts'
import { defineEntity, field, optionalField } from '../core/entity.ts'
import { cond, queryExpression } from '../core/expression.ts'
import { keys, TTL_ATTRIBUTE } from '../core/keys.ts'
import { contactNotificationPut } from '../outbox/outbox-items.ts'
import { commit } from '../core/transaction.ts'

const RETENTION_SECONDS = 180 * 86_400

const contactEntity = defineEntity(
  'contact_request',
  {
    id: field('id', v.string()),
    name: field('name', v.string()),
    email: field('email', v.string()),
    company: optionalField('company', v.string()),
    subject: optionalField('subject', v.string()),
    message: field('message', v.string()),
    receivedAt: field('received_at', v.string()),
  },
  {
    key: (_: null, r) => keys.contactRequest(r.receivedAt, r.id),
    derived: (_, r) => ({ [TTL_ATTRIBUTE]: Math.floor(Date.parse(r.receivedAt) / 1000) + RETENTION_SECONDS }),
  },
)

export function contactPutParams(r: ContactRequest): Omit<PutCommandInput, 'TableName'> {
  return { Item: contactEntity.item(null, r) }
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
  return (await queryUpTo(contactQueryParams(), limit)).map(contactEntity.decode)
}
