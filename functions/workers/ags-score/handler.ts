/**
 * The AGS score worker (decision 0050): one attempt per message (shared/queue/worker.ts). A failed
 * post queues its next attempt as a delayed message; the last one is reported back to SQS, which
 * moves it to the dead-letter queue once its receives are spent.
 */
import { log } from '../../../shared/log.ts'
import { queueWorker } from '../../../shared/queue/worker.ts'
import { AgsScoreMessage, postQueuedScore } from '../../../shared/services/lti/lti-ags-service.ts'

export const handler = queueWorker({
  name: 'score',
  schema: AgsScoreMessage,
  handle: async (msg) => {
    const outcome = await postQueuedScore(msg)
    log('info', 'ags score attempt', {
      tenantId: msg.tenantId,
      enrollmentId: msg.enrollmentId,
      attempt: msg.attempt,
      outcome: typeof outcome === 'string' ? outcome : 'failed',
    })
  },
})
