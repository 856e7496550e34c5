/**
 * The webhook worker: one attempt per message. Failures that SQS should retry (the store was
 * unavailable) are reported per message; a receiver's failure is not one of them: the next
 * attempt is scheduled as a new delayed message, as after an exception while making the
 * attempt (shared/services/claimed-attempt.ts).
 */
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda'
import { attemptDelivery, type WebhookMessage } from '../../../shared/services/webhooks-service.ts'
import { getTenantById } from '../../../shared/store/tenants-store.ts'
import { errorFields, log } from '../../../shared/log.ts'
import { parseMessage } from '../../../shared/queue/sqs.ts'

export const handler = async (event: SQSEvent): Promise<SQSBatchResponse> => {
  const failures: { itemIdentifier: string }[] = []
  await Promise.all(
    event.Records.map(async (record) => {
      try {
        const msg = parseMessage<WebhookMessage>(record.body)
        const tenant = await getTenantById(msg.tenantId)
        if (!tenant) return
        await attemptDelivery(tenant, msg)
      } catch (err) {
        log('error', 'webhook attempt failed', {
          messageId: record.messageId,
          ...errorFields(err),
        })
        failures.push({ itemIdentifier: record.messageId })
      }
    }),
  )
  return { batchItemFailures: failures }
}
