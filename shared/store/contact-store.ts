/** Contact requests: the product's own partition (no tenant), kept 180 days. */
import type { ContactRequest } from '../domain/contact.ts'
import { putItem, queryUpTo, type Item } from './db.ts'
import { keys, TTL_ATTRIBUTE } from './keys.ts'

const RETENTION_SECONDS = 180 * 86_400

export async function insertContactRequest(r: ContactRequest): Promise<void> {
  await putItem({
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
  })
}

const toRequest = (item: Item): ContactRequest => ({
  id: item.id as string,
  name: item.name as string,
  email: item.email as string,
  company: (item.company as string | null | undefined) ?? null,
  subject: (item.subject as string | null | undefined) ?? null,
  message: item.message as string,
  receivedAt: item.received_at as string,
})

/** Newest first, up to `limit`. */
export async function listContactRequests(limit: number): Promise<ContactRequest[]> {
  const items = await queryUpTo(
    {
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.contactPartition },
      ScanIndexForward: false,
    },
    limit,
  )
  return items.map(toRequest)
}
