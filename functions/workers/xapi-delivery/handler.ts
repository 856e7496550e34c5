/**
 * The statement worker: one attempt per message (shared/queue/worker.ts). Only failures SQS should
 * retry (the store was unavailable, a malformed message) are reported; a record store's failure is
 * not one of them: the next attempt is queued as a new delayed message, as after an exception while
 * making the attempt (shared/services/deliveries/claimed-attempt.ts). Each attempt made is counted by outcome
 * (metric StatementAttempts).
 */
import { attemptOutcomeOf, countAttempt } from '../../../shared/metrics/app-metrics.ts'
import { queueWorker } from '../../../shared/queue/worker.ts'
import { attemptQueuedStatement, XapiMessage } from '../../../shared/services/deliveries/xapi-service.ts'

export const handler = queueWorker({
  name: 'statement',
  schema: XapiMessage,
  handle: async (msg) => {
    const status = await attemptQueuedStatement(msg)
    if (status) countAttempt('statement', attemptOutcomeOf(status))
  },
})
