/** The SQS client, created once with the endpoint from config (local emulator, LocalStack or AWS). */
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs'
import { config } from '../config.ts'

/** Exported for instrumentation (the benchmark counts its calls). */
export const sqs = new SQSClient({
  region: config.region,
  ...(config.sqsEndpoint
    ? { endpoint: config.sqsEndpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }
    : {}),
})

export async function sendMessage(
  queueUrl: string | undefined,
  body: unknown,
  delaySeconds = 0,
): Promise<void> {
  if (!queueUrl) throw new Error('The queue URL is not configured')
  await sqs.send(
    new SendMessageCommand({
      QueueUrl: queueUrl,
      MessageBody: JSON.stringify(body),
      DelaySeconds: delaySeconds,
    }),
  )
}

/**
 * A worker's message body, parsed. An unreadable body throws an error that does not quote it
 * (JSON.parse's own message does), so the worker can log the error as it is.
 */
export function parseMessage<T>(body: string): T {
  try {
    return JSON.parse(body) as T
  } catch {
    throw new UnreadableMessageError()
  }
}

export class UnreadableMessageError extends Error {
  constructor() {
    super('The message body is not JSON')
    this.name = 'UnreadableMessageError'
  }
}
