/**
 * The product's SQS client, created once per container (shared/queue/sqs.ts sends through it).
 * Calls go to the endpoint the SDK resolves (the region's, or `AWS_ENDPOINT_URL_SQS`), never to the
 * host a queue URL names: the emulator's URLs name `sqs.<region>.localhost`, which has no DNS here,
 * and in AWS the two are the same.
 */
import { SQSClient } from '@aws-sdk/client-sqs'
import { clientOptions, quickCall } from './settings.ts'

export const sqs = new SQSClient({ ...clientOptions(quickCall), useQueueUrlAsEndpoint: false })
