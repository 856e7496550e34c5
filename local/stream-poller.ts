/**
 * The local stand-in for a DynamoDB Streams event source mapping: reads DynamoDB Local's stream
 * shard by shard, hands batches to the relay handler, and checkpoints (in the table) after each
 * batch the relay accepted, so a restarted stack resumes where it stopped and loses nothing.
 */
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  ExpiredIteratorException,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type _Record,
} from '@aws-sdk/client-dynamodb-streams'
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb'
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda'
import { getCheckpoint, putCheckpoint } from '../shared/store/outbox-store.ts'

type RelayHandler = (event: DynamoDBStreamEvent) => Promise<DynamoDBBatchResponse>

export interface StreamPollerOptions {
  readonly endpoint: string
  readonly region: string
  readonly tableName: string
  readonly handler: RelayHandler
  /** The wait after a poll that found no events to relay. @default 250, the event source mapping's four polls a second */
  readonly intervalMs?: number
}

/**
 * Records a poll reads at most: the event source mapping's batch size in AWS (lib/lms-stack.ts).
 * A batch's events leave the pending index when the whole batch is relayed, so a bigger batch
 * would keep them there longer (and let the sweeper relay them a second time under a backlog).
 */
const LIMIT = 100

/** Shards change seldom (a new one after hours, or a restart): they are listed again this often, not every poll. */
const SHARD_REFRESH_MS = 1000

const credentials = { accessKeyId: 'local', secretAccessKey: 'local' }

/** Records as the Lambda event source delivers them (the SDK's shape is close enough). */
function toEvent(records: _Record[]): DynamoDBStreamEvent {
  return { Records: records as unknown as DynamoDBStreamEvent['Records'] }
}

export function startStreamPoller(options: StreamPollerOptions): { stop(): Promise<void> } {
  const ddb = new DynamoDBClient({ region: options.region, endpoint: options.endpoint, credentials })
  const streams = new DynamoDBStreamsClient({
    region: options.region,
    endpoint: options.endpoint,
    credentials,
  })
  const iterators = new Map<string, string | undefined>()
  let running = true
  let loop: Promise<void> = Promise.resolve()

  async function iteratorFor(streamArn: string, shardId: string): Promise<string | undefined> {
    const after = await getCheckpoint(shardId)
    const out = await streams.send(
      new GetShardIteratorCommand({
        StreamArn: streamArn,
        ShardId: shardId,
        ...(after
          ? { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: after }
          : { ShardIteratorType: 'TRIM_HORIZON' }),
      }),
    )
    return out.ShardIterator
  }

  /** @returns true when the shard may hold more events right away (this poll relayed some, or was full) */
  async function pollShard(streamArn: string, shardId: string): Promise<boolean> {
    if (!iterators.has(shardId)) iterators.set(shardId, await iteratorFor(streamArn, shardId))
    const iterator = iterators.get(shardId)
    if (!iterator) return false
    let out
    try {
      out = await streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: LIMIT }))
    } catch (err) {
      if (err instanceof ExpiredIteratorException) iterators.delete(shardId)
      throw err
    }
    const records = out.Records ?? []
    if (records.length === 0) {
      iterators.set(shardId, out.NextShardIterator)
      return false
    }
    const result = await options.handler(toEvent(records))
    const failed = result.batchItemFailures[0]?.itemIdentifier
    if (failed) {
      // Resume at the failed record on the next poll, as the event source mapping would.
      iterators.delete(shardId)
      const before = records.findIndex((r) => r.dynamodb?.SequenceNumber === failed)
      const last = before > 0 ? records[before - 1]?.dynamodb?.SequenceNumber : undefined
      if (last) await putCheckpoint(shardId, last)
      return false
    }
    iterators.set(shardId, out.NextShardIterator)
    const relayedAny = records.some((r) =>
      ['event', 'notification'].includes(r.dynamodb?.NewImage?.type?.S ?? ''),
    )
    const lastSeq = records.at(-1)?.dynamodb?.SequenceNumber
    // Checkpoint writes are stream records too: write one only after a batch that carried events.
    if (relayedAny && lastSeq) await putCheckpoint(shardId, lastSeq)
    return relayedAny || records.length === LIMIT
  }

  async function run(): Promise<void> {
    const table = await ddb.send(new DescribeTableCommand({ TableName: options.tableName }))
    const streamArn = table.Table?.LatestStreamArn
    if (!streamArn) throw new Error('The table has no stream')
    let shards: string[] = []
    let listedAt = 0
    while (running) {
      let more = false
      try {
        if (Date.now() - listedAt >= SHARD_REFRESH_MS) {
          const desc = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }))
          shards = (desc.StreamDescription?.Shards ?? []).flatMap((s) => (s.ShardId ? [s.ShardId] : []))
          listedAt = Date.now()
        }
        for (const shardId of shards) if (await pollShard(streamArn, shardId)) more = true
      } catch {
        // A poll that fails is simply tried again.
      }
      // A backlog is read without pausing, as the event source mapping does; an idle stream waits.
      if (!more) await new Promise((r) => setTimeout(r, options.intervalMs ?? 250))
    }
  }

  loop = run()
  return {
    stop: async () => {
      running = false
      await loop.catch(() => undefined)
    },
  }
}
