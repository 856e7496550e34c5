/**
 * SendMessage through the product's SQS client (shared/aws/sqs.ts). The client checks the
 * answer's MD5 of the body, retries as the SDK does, and goes where `AWS_ENDPOINT_URL_SQS` says
 * when it is set (the local emulator, LocalStack).
 */
import { SendMessageCommand } from '@aws-sdk/client-sqs'
import { sqs } from '../aws/sqs.ts'

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
