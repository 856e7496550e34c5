/** SQS events as Lambda hands a batch to a worker, for tests that run a worker in-process. */
import { randomUUID } from 'node:crypto'
import type { SQSEvent, SQSRecord } from 'aws-lambda'

export interface RecordOptions {
  readonly messageId?: string
  /** How many times SQS has handed the message out, this time included. */
  readonly receiveCount?: number
  /** The queue's name, in the record's source ARN. */
  readonly queue?: string
}

export function sqsRecord(body: string, options: RecordOptions = {}): SQSRecord {
  const messageId = options.messageId ?? randomUUID()
  return {
    messageId,
    receiptHandle: messageId,
    body,
    attributes: {
      ApproximateReceiveCount: String(options.receiveCount ?? 1),
      SentTimestamp: '0',
      SenderId: 'test',
      ApproximateFirstReceiveTimestamp: '0',
    },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: `arn:aws:sqs:us-east-1:000000000000:${options.queue ?? 'lms-test'}`,
    awsRegion: 'us-east-1',
  }
}

export const sqsEvent = (...records: SQSRecord[]): SQSEvent => ({ Records: records })
