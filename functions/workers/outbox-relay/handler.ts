/**
 * The outbox relay: DynamoDB Streams → deliveries and SQS. In AWS a stream event source mapping
 * invokes it; locally the stream poller of `npm start` reads DynamoDB Local's stream and calls
 * this same handler. The outbox items of a batch (events and notifications) are relayed
 * concurrently (every hand-on is idempotent and no order is promised to receivers), share their
 * reads and are marked relayed together; on a failure the earliest failed record is reported, so
 * the stream retries from there (and the sweeper catches anything the stream never relays).
 */
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda'
import type { AttributeValue } from '@aws-sdk/client-dynamodb'
import { unmarshall } from '@aws-sdk/util-dynamodb'
import { errorFields, log } from '../../../shared/log.ts'
import { countRelayedEvents } from '../../../shared/metrics/app-metrics.ts'
import { outboxEntryOf, relayAll, type OutboxEntry } from '../../../shared/services/outbox/relay-service.ts'

const CONCURRENCY = 16

const outboxTypes = new Set(['event', 'notification'])

function entryOf(record: DynamoDBRecord): OutboxEntry | undefined {
  const image = record.dynamodb?.NewImage
  // Only outbox items matter; everything else on the table's stream is passed over unread.
  if (record.eventName !== 'INSERT' || !outboxTypes.has(image?.type?.S ?? '')) return undefined
  try {
    return outboxEntryOf(unmarshall(image as Record<string, AttributeValue>))
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
    const entry = entryOf(record)
    return entry ? [{ index, entry }] : []
  })
  const failed = await relayAll(
    work.map((w) => w.entry),
    CONCURRENCY,
  )
  // Counted where every event passes once it is saved (a retried batch may count one twice).
  countRelayedEvents(
    work.flatMap((w, i) => (w.entry.kind === 'event' && !failed.includes(i) ? [w.entry.event] : [])),
  )
  const firstFailed = Math.min(...failed.map((i) => work[i]?.index ?? Number.POSITIVE_INFINITY))
  if (!Number.isFinite(firstFailed)) return { batchItemFailures: [] }
  return {
    batchItemFailures: [{ itemIdentifier: stream.Records[firstFailed]?.dynamodb?.SequenceNumber ?? '' }],
  }
}
