/**
 * The local stand-in for an SQS event source mapping: long-polls a queue, hands batches to the
 * worker handler as an SQSEvent, deletes what succeeded and leaves reported failures to come
 * back after the visibility timeout (and to the DLQ after maxReceiveCount).
 */
import {
  DeleteMessageBatchCommand,
  ReceiveMessageCommand,
  SQSClient,
  type Message,
} from '@aws-sdk/client-sqs'
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda'

type Worker = (event: SQSEvent) => Promise<SQSBatchResponse>

/**
 * How long a receive waits for a message: SQS's longest long poll, as the event source mapping
 * polls. A message is answered as soon as it arrives, so this sets no latency, only how often an
 * idle receiver asks: with 1 s, eight receivers a queue on four queues made 32 empty receives a
 * second, about a tenth of a core in the local stack doing nothing. Stopping aborts the waits.
 */
const WAIT_SECONDS = 20

export interface QueuePollerOptions {
  readonly endpoint: string
  readonly region: string
  readonly queueUrl: string
  readonly queueArn: string
  readonly handler: Worker
  /**
   * Receivers polling at once. A receiver waits for its batch's handler (a webhook attempt waits on
   * its receiver), so this bounds the batches in flight, as the event source mapping's concurrency
   * does (five batches at first in AWS, scaling out with the backlog). @default 8
   */
  readonly concurrency?: number
}

function toEvent(messages: Message[], queueArn: string, region: string): SQSEvent {
  return {
    Records: messages.map((m) => ({
      messageId: m.MessageId ?? '',
      receiptHandle: m.ReceiptHandle ?? '',
      body: m.Body ?? '',
      attributes: {
        ApproximateReceiveCount: m.Attributes?.ApproximateReceiveCount ?? '1',
        SentTimestamp: m.Attributes?.SentTimestamp ?? String(Date.now()),
        SenderId: 'local',
        ApproximateFirstReceiveTimestamp: String(Date.now()),
      },
      messageAttributes: {},
      md5OfBody: m.MD5OfBody ?? '',
      eventSource: 'aws:sqs',
      eventSourceARN: queueArn,
      awsRegion: region,
    })),
  }
}

export function startQueuePoller(options: QueuePollerOptions): { stop(): Promise<void> } {
  const sqs = new SQSClient({
    region: options.region,
    endpoint: options.endpoint,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  })
  let running = true
  const stopping = new AbortController()
  // Several receivers at once, as the event source mapping scales out concurrent invocations.
  const receiver = async () => {
    while (running) {
      try {
        const out = await sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: options.queueUrl,
            MaxNumberOfMessages: 10,
            WaitTimeSeconds: WAIT_SECONDS,
            MessageSystemAttributeNames: ['ApproximateReceiveCount', 'SentTimestamp'],
          }),
          { abortSignal: stopping.signal },
        )
        const messages = out.Messages ?? []
        if (messages.length === 0) continue
        const result = await options.handler(toEvent(messages, options.queueArn, options.region))
        const failed = new Set(result.batchItemFailures.map((f) => f.itemIdentifier))
        const done = messages.filter((m) => !failed.has(m.MessageId ?? ''))
        if (done.length > 0) {
          await sqs.send(
            new DeleteMessageBatchCommand({
              QueueUrl: options.queueUrl,
              Entries: done.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle ?? '' })),
            }),
          )
        }
      } catch {
        if (running) await new Promise((r) => setTimeout(r, 500))
      }
    }
  }
  const loops = Array.from({ length: options.concurrency ?? 8 }, receiver)
  return {
    stop: async () => {
      running = false
      stopping.abort()
      await Promise.all(loops)
    },
  }
}
