/**
 * The webhook replay worker (decision 0048): one replay page per message, turned into new
 * deliveries on the webhooks queue, then the next page queued after a delay (on this worker's own
 * queue). A failure (the store or a queue unavailable) is reported, and SQS hands the page out again:
 * its deliveries' ids are derived from the replay and the event, so nothing is delivered twice.
 */
import { queueWorker } from '../../../shared/queue/worker.ts'
import { replayPage, ReplayPageMessage } from '../../../shared/services/deliveries/webhook-replay-service.ts'

export const handler = queueWorker({
  name: 'webhook-replay',
  schema: ReplayPageMessage,
  handle: async (msg) => {
    await replayPage(msg)
  },
})
