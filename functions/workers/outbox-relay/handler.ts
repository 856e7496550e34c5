/**
 * The outbox relay: DynamoDB Streams → deliveries and SQS. In AWS a stream event source mapping
 * invokes it; locally the stream poller of `npm start` reads DynamoDB Local's stream and calls
 * this same handler. Records it cannot relay are reported, so the stream retries them.
 */
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda'
import { unmarshall } from '@aws-sdk/util-dynamodb'
import type { AttributeValue } from '@aws-sdk/client-dynamodb'
import type { DomainEvent, EventType } from '../../../shared/events/outbox.ts'
import { fanOut } from '../../../shared/services/webhooks-service.ts'
import { getTenantById } from '../../../shared/store/tenants-store.ts'
import { log } from '../../../shared/log.ts'

function eventOf(
  image: Record<string, AttributeValue>,
): { tenantId: string; event: DomainEvent } | undefined {
  const item = unmarshall(image)
  if (item.type !== 'event') return undefined
  return {
    tenantId: item.tenant_id as string,
    event: {
      id: item.event_id as string,
      event: item.event as EventType,
      createdAt: item.created_at as string,
      data: item.data as Record<string, unknown>,
    },
  }
}

export const handler = async (stream: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
  for (const record of stream.Records) {
    const image = record.dynamodb?.NewImage
    // Only outbox events matter; everything else on the table's stream is passed over unread.
    if (record.eventName !== 'INSERT' || image?.type?.S !== 'event') continue
    let found: ReturnType<typeof eventOf>
    try {
      found = eventOf(image as Record<string, AttributeValue>)
    } catch (err) {
      log('error', 'unreadable outbox record skipped', {
        sequenceNumber: record.dynamodb?.SequenceNumber,
        errorName: String(err),
      })
      continue
    }
    if (!found) continue
    try {
      const tenant = await getTenantById(found.tenantId)
      if (!tenant) continue
      const deliveries = await fanOut(tenant, found.event)
      log('info', 'relayed', {
        eventId: found.event.id,
        event: found.event.event,
        tenantId: tenant.id,
        deliveries,
      })
    } catch (err) {
      log('error', 'relay failed', {
        eventId: found.event.id,
        errorName: err instanceof Error ? err.name : 'Error',
      })
      // Stop here: this record and the ones after it are retried, in order.
      return { batchItemFailures: [{ itemIdentifier: record.dynamodb?.SequenceNumber ?? '' }] }
    }
  }
  return { batchItemFailures: [] }
}
