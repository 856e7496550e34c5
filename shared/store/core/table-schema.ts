/**
 * The table's shape, declared once: the CDK stack and the local stack both build the table from
 * it, so DynamoDB Local and AWS always have the same keys, indexes, TTL and stream.
 */
import { projectionOf } from './index-projections.ts'
import { allIndexes, TTL_ATTRIBUTE } from './keys.ts'
import { reportIndexList } from '../reports/report-indexes.ts'
import { positionIndex } from '../users/user-positions.ts'

export const tableSchema = {
  partitionKey: 'pk',
  sortKey: 'sk',
  globalIndexes: [...allIndexes, ...reportIndexList, positionIndex].map((i) => ({
    ...i,
    projection: projectionOf(i.name),
  })),
  ttlAttribute: TTL_ATTRIBUTE,
  /** The outbox relay reads new images from the stream. */
  streamView: 'NEW_AND_OLD_IMAGES',
} as const

/** Queues of the workers (each with a dead-letter queue), the exports and the content bucket. */
export const queueNames = ['exports', 'webhooks', 'xapi', 'notifications', 'replays', 'ags'] as const
export const deadLetterSuffix = '-dlq'
export const exportsBucketName = 'lms-exports'
/** Module packages (archive ZIPs), uploaded in the app and downloaded through pre-signed URLs. */
export const contentBucketName = 'lms-content'
