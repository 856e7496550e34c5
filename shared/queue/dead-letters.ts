/**
 * The workers' dead-letter queues, for the operator (`lms dlq list|redrive`): how many messages
 * each holds, and moving them back to the queue they came from. Each dead-letter queue is found
 * through its source queue's own redrive policy, so only the worker queues' URLs are configured.
 *
 * The move is receive → send to the source queue → delete, in batches of 10, not SQS's own
 * StartMessageMoveTask: the local emulator (fauxqs 2) implements neither StartMessageMoveTask nor
 * ListDeadLetterSourceQueues, and one path that works in both places is the one the tests prove.
 * It also answers with what it moved, where a move task runs on in the background. A message is
 * deleted from the dead-letter queue only once the source queue accepted its copy; one that was not
 * accepted is left there (visible again after MOVE_VISIBILITY_SECONDS) and counted as not moved.
 */
import {
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  type Message,
} from '@aws-sdk/client-sqs'
import { sqs } from '../aws/sqs.ts'

/** How long a received message stays hidden while its copy is sent: long enough for one batch. */
const MOVE_VISIBILITY_SECONDS = 30
/** A short long-poll: the last, empty receive then means the queue is empty, not that SQS sampled servers that hold none. */
const RECEIVE_WAIT_SECONDS = 1

export interface DeadLetterQueue {
  readonly url: string
  readonly arn: string
}

/** The dead-letter queue a queue's redrive policy names. */
export async function deadLetterQueueOf(queueUrl: string): Promise<DeadLetterQueue> {
  const attributes = (
    await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['RedrivePolicy'] }))
  ).Attributes
  const policy = attributes?.RedrivePolicy
  if (!policy) throw new Error(`The queue ${queueUrl} has no dead-letter queue (no RedrivePolicy)`)
  const arn = (JSON.parse(policy) as { deadLetterTargetArn?: string }).deadLetterTargetArn ?? ''
  // arn:aws:sqs:<region>:<account>:<name>
  const [, , , , account, name] = arn.split(':')
  if (!account || !name) throw new Error(`The queue ${queueUrl} names no dead-letter queue ARN`)
  const url = (await sqs.send(new GetQueueUrlCommand({ QueueName: name, QueueOwnerAWSAccountId: account })))
    .QueueUrl
  if (!url) throw new Error(`The dead-letter queue ${arn} has no URL`)
  return { url, arn }
}

export interface DeadLetterDepth {
  /** Messages waiting in the dead-letter queue. */
  readonly messages: number
  /** Messages received from it and not yet deleted (being read, or moved, right now). */
  readonly inFlight: number
}

/** SQS's approximate counts of a dead-letter queue. */
export async function deadLetterDepth(dlq: DeadLetterQueue): Promise<DeadLetterDepth> {
  const a = (
    await sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl: dlq.url,
        AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
      }),
    )
  ).Attributes
  return {
    messages: Number(a?.ApproximateNumberOfMessages ?? 0),
    inFlight: Number(a?.ApproximateNumberOfMessagesNotVisible ?? 0),
  }
}

export interface RedriveResult {
  readonly moved: number
  /** Received but refused by the source queue: still in the dead-letter queue. */
  readonly notMoved: number
}

/** Sends one received batch to `to`; deletes from `from` what `to` accepted. */
async function moveBatch(
  from: DeadLetterQueue,
  to: string,
  messages: readonly Message[],
): Promise<RedriveResult> {
  const sent = await sqs.send(
    new SendMessageBatchCommand({
      QueueUrl: to,
      Entries: messages.map((m, i) => ({
        Id: String(i),
        MessageBody: m.Body ?? '',
        ...(m.MessageAttributes ? { MessageAttributes: m.MessageAttributes } : {}),
      })),
    }),
  )
  const accepted = (sent.Successful ?? []).map((s) => messages[Number(s.Id)]).filter((m) => m !== undefined)
  if (accepted.length > 0) {
    await sqs.send(
      new DeleteMessageBatchCommand({
        QueueUrl: from.url,
        Entries: accepted.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle ?? '' })),
      }),
    )
  }
  return { moved: accepted.length, notMoved: messages.length - accepted.length }
}

/**
 * Moves every message of `queueUrl`'s dead-letter queue back to `queueUrl`, where its worker reads
 * it again from its first receive. Fix what made them fail first: they run again as they are.
 */
export async function redrive(queueUrl: string): Promise<RedriveResult> {
  const dlq = await deadLetterQueueOf(queueUrl)
  let moved = 0
  let notMoved = 0
  for (;;) {
    const { Messages: messages = [] } = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: dlq.url,
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: RECEIVE_WAIT_SECONDS,
        VisibilityTimeout: MOVE_VISIBILITY_SECONDS,
        MessageAttributeNames: ['All'],
      }),
    )
    if (messages.length === 0) return { moved, notMoved }
    const batch = await moveBatch(dlq, queueUrl, messages)
    moved += batch.moved
    notMoved += batch.notMoved
  }
}
