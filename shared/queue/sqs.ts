/**
 * SendMessage without the SQS client: one signed call to SQS's JSON protocol
 * (shared/aws/signed-json-call.ts) to the endpoint from config (the local emulator or LocalStack)
 * or the region's. Four route groups queue work and do nothing else with SQS, and the client with
 * its MD5 middleware was about 23 KiB of each of their bundles (docs/decisions/0013). The request
 * is the one the SDK's client sends (test/unit/queue/sqs.test.ts compares them), and the answer's
 * MD5 of the body is checked as the client checks it.
 */
import { createHash } from 'node:crypto'
import { awsEndpoint, callAwsJson, type AwsJsonService } from '../aws/signed-json-call.ts'
import { config } from '../config.ts'
import { emulatorCredentials, lambdaCredentials } from '../aws/credentials.ts'

/** Where the messages go: the emulator's address with its fixed keys, or SQS of the region. */
export type QueueService = AwsJsonService

let configured: QueueService | undefined
const fromConfig = (): QueueService =>
  (configured ??= config.sqsEndpoint
    ? {
        endpoint: config.sqsEndpoint,
        region: config.region,
        credentials: emulatorCredentials,
      }
    : {
        endpoint: awsEndpoint('sqs', config.region),
        region: config.region,
        credentials: lambdaCredentials(),
      })

const sendMessageOperation = {
  signingName: 'sqs',
  jsonVersion: '1.0',
  target: 'AmazonSQS.SendMessage',
} as const

/** One message handed to SQS. */
export interface QueuedMessage {
  readonly queueUrl: string
  readonly body: string
  readonly delaySeconds: number
}

/**
 * Called before each send (the benchmark counts and times them; a test injects a queue fault by
 * throwing) and after each accepted one. Empty in the product.
 */
export const queueObservers = {
  beforeSend: new Set<(m: QueuedMessage) => void>(),
  sent: new Set<(m: QueuedMessage) => void>(),
}

export async function sendMessage(
  queueUrl: string | undefined,
  body: unknown,
  delaySeconds = 0,
  service: QueueService = fromConfig(),
): Promise<void> {
  if (!queueUrl) throw new Error('The queue URL is not configured')
  const message: QueuedMessage = { queueUrl, body: JSON.stringify(body), delaySeconds }
  for (const observe of queueObservers.beforeSend) observe(message)
  const out = (await callAwsJson(service, sendMessageOperation, {
    QueueUrl: queueUrl,
    MessageBody: message.body,
    DelaySeconds: delaySeconds,
  })) as { MD5OfMessageBody?: unknown }
  // The SDK's client refuses an answer whose digest is not the body's: the message may be mangled.
  if (out.MD5OfMessageBody !== createHash('md5').update(message.body).digest('hex')) {
    throw new Error('SendMessage: the queue answered with another body digest')
  }
  for (const observe of queueObservers.sent) observe(message)
}
