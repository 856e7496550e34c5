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
