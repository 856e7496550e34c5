/**
 * The outbox relay: DynamoDB Streams → deliveries and SQS. In AWS a stream event source mapping
 * invokes it; locally the stream poller of `npm start` reads DynamoDB Local's stream and calls
 * this same handler. Records it cannot relay are reported, so the stream retries them (and the
 * sweeper, `functions/workers/outbox-sweeper`, catches anything the stream never relays).
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb'
import { unmarshall } from '@aws-sdk/util-dynamodb'
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda'
import { log } from '../../../shared/log.ts'
import { relay } from '../../../shared/services/relay-service.ts'
import { toPendingEvent, type PendingEvent } from '../../../shared/store/outbox-store.ts'

export const handler = async (stream: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
  for (const record of stream.Records) {
    const image = record.dynamodb?.NewImage
    // Only outbox events matter; everything else on the table's stream is passed over unread.
    if (record.eventName !== 'INSERT' || image?.type?.S !== 'event') continue
    let pending: PendingEvent
    try {
      pending = toPendingEvent(unmarshall(image as Record<string, AttributeValue>))
    } catch (err) {
      log('error', 'unreadable outbox record skipped', {
        sequenceNumber: record.dynamodb?.SequenceNumber,
        errorName: String(err),
      })
      continue
    }
    try {
      await relay(pending)
    } catch (err) {
      log('error', 'relay failed', {
        eventId: pending.event.id,
        errorName: err instanceof Error ? err.name : 'Error',
      })
      // Stop here: this record and the ones after it are retried, in order.
      return { batchItemFailures: [{ itemIdentifier: record.dynamodb?.SequenceNumber ?? '' }] }
    }
  }
  return { batchItemFailures: [] }
}
