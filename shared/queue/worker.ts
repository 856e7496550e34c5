/**
 * The one shape of an SQS worker: each message of a batch is read against its valibot schema and
 * handled on its own, and only the messages that failed are reported back (ReportBatchItemFailures),
 * so SQS hands out again those and no others. Every failure is logged with the error's name and
 * message next to the message id, never the body: a body may hold ids and personal data.
 *
 * A body that is not JSON or does not match the schema is reported like any other failure: it comes
 * back after the visibility timeout and moves to the dead-letter queue after the queue's
 * maxReceiveCount. It is not dropped or moved by the worker itself: the dead-letter queue keeps it
 * whole for inspection and redrive through the one path every failure takes, and a message written
 * by a newer producer during a deploy reads once the new worker runs.
 */
import type { SQSBatchItemFailure, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda'
import * as v from 'valibot'
import { errorFields, log } from '../log.ts'

/** A message body this worker cannot read: a producer's bug, never a passing fault. */
export class MalformedMessage extends Error {
  constructor(
    readonly worker: string,
    problem: string,
  ) {
    super(`The ${worker} message ${problem}`)
    this.name = 'MalformedMessage'
  }
}

/**
 * @returns the body as the schema's output
 * @throws MalformedMessage naming the first problem's path and the type expected, never a value
 */
export function readMessage<S extends v.GenericSchema>(
  worker: string,
  schema: S,
  body: string,
): v.InferOutput<S> {
  let json: unknown
  try {
    json = JSON.parse(body)
  } catch {
    // JSON.parse's own message quotes the body.
    throw new MalformedMessage(worker, 'is not JSON')
  }
  const result = v.safeParse(schema, json)
  if (result.success) return result.output
  const issue = result.issues[0]
  const path = issue.path?.map((p) => String(p.key)).join('.') ?? '(body)'
  const problem = issue.input === undefined ? 'missing' : `expected ${issue.expected ?? issue.type}`
  throw new MalformedMessage(worker, `does not match its schema: ${path}: ${problem}`)
}

export interface WorkerSpec<S extends v.GenericSchema> {
  /** What the log lines call the worker's message (`webhook`, `statement`). */
  readonly name: string
  readonly schema: S
  /** Handles one message; throwing hands it back to SQS. */
  readonly handle: (message: v.InferOutput<S>, record: SQSRecord) => Promise<void>
}

/** A Lambda handler for an SQS event source with `reportBatchItemFailures`. */
export function queueWorker<S extends v.GenericSchema>(
  spec: WorkerSpec<S>,
): (event: SQSEvent) => Promise<SQSBatchResponse> {
  const handleRecord = async (record: SQSRecord): Promise<SQSBatchItemFailure | undefined> => {
    try {
      await spec.handle(readMessage(spec.name, spec.schema, record.body), record)
      return undefined
    } catch (err) {
      log('error', `${spec.name} attempt failed`, {
        messageId: record.messageId,
        receiveCount: Number(record.attributes.ApproximateReceiveCount),
        ...errorFields(err),
      })
      return { itemIdentifier: record.messageId }
    }
  }
  return async (event) => {
    const outcomes = await Promise.all(event.Records.map(handleRecord))
    return { batchItemFailures: outcomes.filter((f): f is SQSBatchItemFailure => f !== undefined) }
  }
}
