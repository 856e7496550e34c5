/**
 * The outbox relay: DynamoDB Streams → deliveries and SQS. In AWS a stream event source mapping
 * invokes it; locally the stream poller of `npm start` reads DynamoDB Local's stream and calls
 * this same handler. Events of a batch are relayed concurrently (fan-out is idempotent and no
 * order is promised to receivers), share their reads and are marked relayed together; on a
 * failure the earliest failed record is reported, so the stream retries from there (and the
 * sweeper catches anything the stream never relays).
 */
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda'
import type { AttributeValue } from '@aws-sdk/client-dynamodb'
import { unmarshall } from '@aws-sdk/util-dynamodb'
import { errorFields, log } from '../../../shared/log.ts'
import { countRelayedEvents } from '../../../shared/metrics/app-metrics.ts'
import { relayAll } from '../../../shared/services/outbox/relay-service.ts'
import { toPendingEvent, type PendingEvent } from '../../../shared/store/outbox/outbox-store.ts'
import { relayNotificationRecords } from './notification-records.ts'

const CONCURRENCY = 16

function pendingOf(record: DynamoDBRecord): PendingEvent | undefined {
  const image = record.dynamodb?.NewImage
  // Only outbox events matter; everything else on the table's stream is passed over unread.
  if (record.eventName !== 'INSERT' || image?.type?.S !== 'event') return undefined
  try {
    return toPendingEvent(unmarshall(image as Record<string, AttributeValue>))
  } catch (err) {
    log('error', 'unreadable outbox record skipped', {
      sequenceNumber: record.dynamodb?.SequenceNumber,
      ...errorFields(err),
    })
    return undefined
  }
}

export const handler = async (stream: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
  const work = stream.Records.flatMap((record, index) => {
    const pending = pendingOf(record)
    return pending ? [{ index, pending }] : []
  })
  const notificationFailed = await relayNotificationRecords(stream.Records)
  const failed = await relayAll(
    work.map((w) => w.pending),
    CONCURRENCY,
  )
  // Counted where every event passes once it is saved (a retried batch may count one twice).
  countRelayedEvents(work.filter((_, i) => !failed.includes(i)).map((w) => w.pending.event))
  const firstFailed = Math.min(
    notificationFailed ?? Number.POSITIVE_INFINITY,
    ...failed.map((i) => work[i]?.index ?? Number.POSITIVE_INFINITY),
  )
  if (!Number.isFinite(firstFailed)) return { batchItemFailures: [] }
  return {
    batchItemFailures: [{ itemIdentifier: stream.Records[firstFailed]?.dynamodb?.SequenceNumber ?? '' }],
  }
}
