/**
 * The statement worker: one attempt per message. Failures that SQS should retry (the store was
 * unavailable) are reported per message; a record store's failure is not one of them: the next
 * attempt is scheduled as a new delayed message, as after an exception while making the
 * attempt (shared/services/claimed-attempt.ts).
 */
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda'
import { errorFields, log } from '../../../shared/log.ts'
import { parseMessage } from '../../../shared/queue/sqs.ts'
import { attemptStatement, type XapiMessage } from '../../../shared/services/xapi-service.ts'
import { getTenantById } from '../../../shared/store/tenants-store.ts'

export const handler = async (event: SQSEvent): Promise<SQSBatchResponse> => {
  const failures: { itemIdentifier: string }[] = []
  await Promise.all(
    event.Records.map(async (record) => {
      try {
        const msg = parseMessage<XapiMessage>(record.body)
        const tenant = await getTenantById(msg.tenantId)
        if (!tenant) return
        await attemptStatement(tenant, msg)
      } catch (err) {
        log('error', 'statement attempt failed', {
          messageId: record.messageId,
          ...errorFields(err),
        })
        failures.push({ itemIdentifier: record.messageId })
      }
    }),
  )
  return { batchItemFailures: failures }
}
