/** The local event sources: the stream relay and one poller per worker queue, as in AWS. */
import { handler as relay } from '../functions/workers/outbox-relay/handler.ts'
import { handler as webhookWorker } from '../functions/workers/webhook-delivery/handler.ts'
import { handler as replayWorker } from '../functions/workers/webhook-replay/handler.ts'
import { handler as sweeper } from '../functions/workers/outbox-sweeper/handler.ts'
import { handler as xapiWorker } from '../functions/workers/xapi-delivery/handler.ts'
import { handler as notificationWorker } from '../functions/workers/notification-delivery/handler.ts'
import { handler as exportWorker } from '../functions/workers/export-build/handler.ts'
import { handler as agsWorker } from '../functions/workers/ags-score/handler.ts'
import { asFunction } from './iam/invocation.ts'
import { startQueuePoller } from './queue-poller.ts'
import { startJobScheduler } from './scheduler.ts'
import type { RunningStores } from './stores.ts'
import { startStreamPoller } from './stream-poller.ts'

export function startWorkers(options: {
  stores: RunningStores
  region: string
  tableName: string
  relay: boolean
}) {
  const { stores, region } = options
  const stoppers: { stop(): Promise<void> }[] = []
  if (options.relay) {
    stoppers.push(
      startStreamPoller({
        endpoint: stores.dynamoEndpoint,
        region,
        tableName: options.tableName,
        handler: asFunction('outbox-relay', relay),
      }),
      startSchedule(5000, asFunction('outbox-sweeper', sweeper)),
    )
  }
  // Each worker runs as its function of the stack (`<queue>-worker`, lib/lms-stack.ts).
  const pollers = [
    { queue: stores.queues.webhooks, handler: asFunction('webhooks-worker', webhookWorker) },
    {
      queue: stores.queues.replays,
      handler: asFunction('replays-worker', replayWorker),
      // Two pages at once at most, as the queue's event source in AWS (decision 0048).
      concurrency: 2,
    },
    { queue: stores.queues.xapi, handler: asFunction('xapi-worker', xapiWorker) },
    { queue: stores.queues.notifications, handler: asFunction('notifications-worker', notificationWorker) },
    { queue: stores.queues.exports, handler: asFunction('exports-worker', exportWorker) },
    { queue: stores.queues.ags, handler: asFunction('ags-worker', agsWorker) },
  ]
  for (const { queue, handler, ...options } of pollers) {
    if (!queue) continue
    stoppers.push(
      startQueuePoller({
        endpoint: stores.emulatorEndpoint,
        region,
        queueUrl: queue.url,
        queueArn: queue.arn,
        handler,
        ...options,
      }),
    )
  }
  stoppers.push(startJobScheduler())
  return { stop: async () => void (await Promise.all(stoppers.map((s) => s.stop()))) }
}

/** The local stand-in for a scheduled rule: runs `fn` every `everyMs`, one run at a time. */
function startSchedule(everyMs: number, fn: () => Promise<unknown>): { stop(): Promise<void> } {
  let running = true
  let current: Promise<unknown> = Promise.resolve()
  let timer: NodeJS.Timeout | undefined
  const tick = () => {
    current = fn()
      .catch(() => undefined)
      .finally(() => {
        if (running) timer = setTimeout(tick, everyMs)
      })
  }
  timer = setTimeout(tick, everyMs)
  return {
    stop: async () => {
      running = false
      clearTimeout(timer)
      await current
    },
  }
}
