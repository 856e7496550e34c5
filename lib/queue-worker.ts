/**
 * A worker behind a queue: the queue, its dead-letter queue, the function, and the SQS event
 * source that reports failures per message (shared/queue/worker.ts writes the handlers for it).
 */
import { Duration, Validations } from 'aws-cdk-lib'
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs'
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources'
import { Construct } from 'constructs'
import { deadLetterSuffix } from '../shared/store/core/table-schema.ts'
import { grantSendMessage } from './grants.ts'
import { RouteGroupFunction } from './route-group-function.ts'

/**
 * AWS asks for a visibility timeout of at least six times the function timeout on an SQS event
 * source: a batch the service has to retry (throttled, or the function still starting) must stay
 * hidden until it can be invoked again, or it comes back while in flight and counts a receive
 * towards the dead-letter queue. Six times exactly: longer only delays the retry of a failed message.
 */
export const VISIBILITY_TIMEOUT_FACTOR = 6

/** A worker's maximum concurrency when its caller sets none. */
export const DEFAULT_WORKER_CONCURRENCY = 5

export function visibilityTimeoutFor(functionTimeout: Duration): Duration {
  return Duration.seconds(functionTimeout.toSeconds() * VISIBILITY_TIMEOUT_FACTOR)
}

export interface DeadLetteredQueueProps {
  readonly visibilityTimeout: Duration
  /** Receives before a message moves to the dead-letter queue. @default 5 */
  readonly maxReceiveCount?: number
}

/**
 * The queue `lms-<name>` and its dead-letter queue `lms-<name>-dlq` (kept 14 days), both encrypted
 * and reachable over TLS only, as `<name>Queue` and `<name>Dlq` in `scope`.
 */
export function deadLetteredQueue(
  scope: Construct,
  name: string,
  props: DeadLetteredQueueProps,
): { readonly queue: Queue; readonly deadLetterQueue: Queue } {
  const deadLetterQueue = new Queue(scope, `${name}Dlq`, {
    queueName: `lms-${name}${deadLetterSuffix}`,
    retentionPeriod: Duration.days(14),
    encryption: QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
  })
  Validations.of(deadLetterQueue).acknowledge({
    id: 'Serverless-SQSRedrivePolicy',
    reason:
      'This is the dead-letter queue: its messages wait for an operator (docs/operations.md), not for another queue.',
  })
  const queue = new Queue(scope, `${name}Queue`, {
    queueName: `lms-${name}`,
    visibilityTimeout: props.visibilityTimeout,
    deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: props.maxReceiveCount ?? 5 },
    encryption: QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
  })
  return { queue, deadLetterQueue }
}

export interface QueueWorkerProps {
  /** Path of the handler module (exports `handler`). */
  readonly entry: string
  readonly environment: Record<string, string>
  readonly timeout: Duration
  /** Messages an invocation. @default 10 */
  readonly batchSize?: number
  /**
   * Most concurrent invocations the queue's event source starts (2 to 1000): a burst of messages
   * then waits in the queue instead of taking the account's whole Lambda concurrency (and, for the
   * delivery workers, hitting one customer's endpoint with all of it).
   * @default DEFAULT_WORKER_CONCURRENCY
   */
  readonly maxConcurrency?: number
  /** Receives before a message moves to the dead-letter queue. @default 5 */
  readonly maxReceiveCount?: number
  /**
   * The environment variable that gives the worker its own queue's URL: a worker that queues its
   * next attempt as a delayed message may then send to that queue (and no other).
   */
  readonly ownQueueUrlVariable?: string
}

/**
 * The worker of queue `lms-<id>`. Its queues are made next to it (in its scope, as `<id>Queue` and
 * `<id>Dlq`), not inside it: a queue has a fixed name, and CloudFormation cannot replace a named
 * resource, so a queue's logical id must not move when the code around it does.
 */
export class QueueWorker extends Construct {
  readonly queue: Queue
  readonly deadLetterQueue: Queue
  readonly fn: RouteGroupFunction

  constructor(scope: Construct, id: string, props: QueueWorkerProps) {
    super(scope, id)
    const { queue, deadLetterQueue } = deadLetteredQueue(scope, id, {
      visibilityTimeout: visibilityTimeoutFor(props.timeout),
      ...(props.maxReceiveCount === undefined ? {} : { maxReceiveCount: props.maxReceiveCount }),
    })
    this.queue = queue
    this.deadLetterQueue = deadLetterQueue
    this.fn = new RouteGroupFunction(this, 'Function', {
      entry: props.entry,
      environment: props.ownQueueUrlVariable
        ? { ...props.environment, [props.ownQueueUrlVariable]: queue.queueUrl }
        : props.environment,
      timeout: props.timeout,
    })
    if (props.ownQueueUrlVariable) grantSendMessage(queue, this.fn)
    this.fn.addEventSource(
      new SqsEventSource(queue, {
        batchSize: props.batchSize ?? 10,
        reportBatchItemFailures: true,
        maxConcurrency: props.maxConcurrency ?? DEFAULT_WORKER_CONCURRENCY,
      }),
    )
    Validations.of(this.fn).acknowledge({
      id: 'Serverless-LambdaEventSourceMappingDestination',
      reason:
        "SQS event sources take no on-failure destination: a message that keeps failing moves to the queue's own dead-letter queue (maxReceiveCount).",
    })
    Validations.of(this.fn).acknowledge({
      id: 'Serverless-LambdaDLQ',
      reason:
        'Invoked synchronously by its SQS event source only: failures stay in the queue, then its dead-letter queue.',
    })
  }
}
