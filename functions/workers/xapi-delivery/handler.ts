/**
 * The statement worker: one attempt per message. Failures that SQS should retry (the store was
 * unavailable) are reported per message; a record store's failure is not one of them: the next
 * attempt is scheduled as a new delayed message.
 */
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda'
import { log } from '../../../shared/log.ts'
import { attemptStatement, type XapiMessage } from '../../../shared/services/xapi-service.ts'
import { getTenantById } from '../../../shared/store/tenants-store.ts'

export const handler = async (event: SQSEvent): Promise<SQSBatchResponse> => {
  const failures: { itemIdentifier: string }[] = []
  await Promise.all(
    event.Records.map(async (record) => {
      try {
        const msg = JSON.parse(record.body) as XapiMessage
        const tenant = await getTenantById(msg.tenantId)
        if (!tenant) return
        await attemptStatement(tenant, msg)
      } catch (err) {
        log('error', 'statement attempt failed', {
          messageId: record.messageId,
          errorName: err instanceof Error ? err.name : 'Error',
        })
        failures.push({ itemIdentifier: record.messageId })
      }
    }),
  )
  return { batchItemFailures: failures }
}
