/**
 * The relay's notification fan-out: each notification inserted on the stream goes onto the
 * notifications queue (shared/services/outbox/notification-relay.ts), next to the events' fan-out.
 */
import type { DynamoDBRecord } from 'aws-lambda'
import type { AttributeValue } from '@aws-sdk/client-dynamodb'
import { unmarshall } from '@aws-sdk/util-dynamodb'
import { mapLimit } from '../../../shared/concurrency.ts'
import { errorFields, log } from '../../../shared/log.ts'
import { relayNotification } from '../../../shared/services/outbox/notification-relay.ts'
import {
  toPendingNotification,
  type PendingNotification,
} from '../../../shared/store/outbox/notification-outbox-store.ts'

const CONCURRENCY = 16

function pendingOf(record: DynamoDBRecord): PendingNotification | undefined {
  const image = record.dynamodb?.NewImage
  if (record.eventName !== 'INSERT' || image?.type?.S !== 'notification') return undefined
  try {
    return toPendingNotification(unmarshall(image as Record<string, AttributeValue>))
  } catch (err) {
    log('error', 'unreadable outbox notification skipped', {
      sequenceNumber: record.dynamodb?.SequenceNumber,
      ...errorFields(err),
    })
    return undefined
  }
}

/** @returns the index of the earliest record that failed to relay, if any */
export async function relayNotificationRecords(
  records: readonly DynamoDBRecord[],
): Promise<number | undefined> {
  const work = records.flatMap((record, index) => {
    const pending = pendingOf(record)
    return pending ? [{ index, pending }] : []
  })
  let firstFailed: number | undefined
  await mapLimit(work, CONCURRENCY, async (item) => {
    try {
      await relayNotification(item.pending)
    } catch (err) {
      log('error', 'notification relay failed', {
        notificationId: item.pending.notification.id,
        ...errorFields(err),
      })
      if (firstFailed === undefined || item.index < firstFailed) firstFailed = item.index
    }
  })
  return firstFailed
}
