/**
 * `lms dlq list` and `lms dlq redrive --queue NAME`: the workers' dead-letter queues
 * (shared/queue/dead-letters.ts). The worker queues are those the environment names, locally the
 * embedded stack's and in AWS (`LMS_TARGET=aws`) the stack outputs' `<queue>QueueUrl`, given as
 * `LMS_<QUEUE>_QUEUE_URL`; each one's dead-letter queue is read from its redrive policy.
 */
import { config } from '../shared/config.ts'
import { deadLetterDepth, deadLetterQueueOf, redrive } from '../shared/queue/dead-letters.ts'
import { queueNames } from '../shared/store/core/table-schema.ts'
import { CommandFailed, required, UsageError } from './args.ts'
import { command, type Command } from './flags.ts'

type QueueName = (typeof queueNames)[number]

const urls: Record<QueueName, string | undefined> = {
  webhooks: config.webhooksQueueUrl,
  xapi: config.xapiQueueUrl,
  notifications: config.notificationsQueueUrl,
  exports: config.exportsQueueUrl,
  replays: config.webhookReplayQueueUrl,
  ags: config.agsQueueUrl,
}

const variableOf = (name: QueueName) => `LMS_${name.toUpperCase()}_QUEUE_URL`

function queueUrlOf(name: string): string {
  if (!(queueNames as readonly string[]).includes(name)) {
    throw new UsageError(`--queue takes ${queueNames.join(', ')}`)
  }
  const url = urls[name as QueueName]
  if (!url) {
    throw new UsageError(
      `${variableOf(name as QueueName)} is not set: give it the stack output ${name}QueueUrl`,
    )
  }
  return url
}

export const dlqCommands: Record<string, Command> = {
  'dlq list': command(
    '',
    "each worker queue's dead-letter queue and how many messages wait there",
    async () => {
      const configured = queueNames.filter((name) => urls[name] !== undefined)
      if (configured.length === 0) {
        throw new UsageError(
          `No worker queue is configured: set ${queueNames.map(variableOf).join(', ')} from the stack outputs`,
        )
      }
      const data = []
      for (const queue of configured) {
        const dlq = await deadLetterQueueOf(queueUrlOf(queue))
        const depth = await deadLetterDepth(dlq)
        data.push({
          queue,
          messages: depth.messages,
          messages_in_flight: depth.inFlight,
          dead_letter_queue_arn: dlq.arn,
        })
      }
      return { data }
    },
  ),
  'dlq redrive': command(
    `--queue ${queueNames.join('|')}`,
    'move every message of a dead-letter queue back to its worker queue',
    async (f) => {
      const queue = required(f, 'queue')
      const { moved, notMoved } = await redrive(queueUrlOf(queue))
      if (notMoved > 0) {
        throw new CommandFailed(
          502,
          `Moved ${moved} message(s) of ${queue}; ${notMoved} were refused by the queue and stay in its dead-letter queue: run the command again`,
        )
      }
      return { queue, moved }
    },
  ),
}
