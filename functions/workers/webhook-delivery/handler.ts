/**
 * The webhook worker: one attempt per message (shared/queue/worker.ts). Only failures SQS should
 * retry (the store was unavailable, a malformed message) are reported; a receiver's failure is
 * not one of them: the next attempt is queued as a new delayed message, as after an exception while
 * making the attempt (shared/services/deliveries/claimed-attempt.ts). The attempts of one batch share one
 * read of each endpoint. Each attempt made is counted by outcome (metric WebhookAttempts).
 */
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda'
import { attemptOutcomeOf, countAttempt } from '../../../shared/metrics/app-metrics.ts'
import { queueWorker } from '../../../shared/queue/worker.ts'
import { WebhookMessage } from '../../../shared/services/deliveries/webhook-messages.ts'
import { attemptQueuedDelivery, endpointReads } from '../../../shared/services/deliveries/webhooks-service.ts'

export const handler = (batch: SQSEvent): Promise<SQSBatchResponse> => {
  const endpoint = endpointReads()
  return queueWorker({
    name: 'webhook',
    schema: WebhookMessage,
    handle: async (msg: WebhookMessage) => {
      const status = await attemptQueuedDelivery(msg, endpoint)
      if (status) countAttempt('webhook', attemptOutcomeOf(status))
    },
  })(batch)
}
