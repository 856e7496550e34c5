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
  type GetRecordsCommandOutput,
  type _Record,
} from '@aws-sdk/client-dynamodb-streams'
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb'
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda'
import { getCheckpoint, putCheckpoint } from '../shared/store/outbox/outbox-store.ts'
import { relayBatches, resumeBefore } from './stream-batches.ts'

type RelayHandler = (event: DynamoDBStreamEvent) => Promise<DynamoDBBatchResponse>

export interface StreamPollerOptions {
  readonly endpoint: string
  readonly region: string
  readonly tableName: string
  readonly handler: RelayHandler
  /** The wait after a poll that found no events to relay. @default 250, the event source mapping's four polls a second */
  readonly intervalMs?: number
}

/** Relayed records an invocation carries at most: the event source mapping's batch size (lib/lms-stack.ts). */
const BATCH_SIZE = 100

/**
 * Records a read returns at most (GetRecords' own maximum). The filter keeps about one record in
 * five (lms-stack's filter criteria, local/stream-batches.ts), so a page this size fills batches.
 */
const PAGE = 1000

/** Shards change seldom (a new one after hours, or a restart): they are listed again this often, not every poll. */
const SHARD_REFRESH_MS = 1000

/** How often a shard's checkpoint is written at most while events flow (see checkpointBeside). */
const CHECKPOINT_EVERY_MS = 1000

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
  const readAhead = new Map<string, Promise<GetRecordsCommandOutput>>()
  // Checkpoints are written beside the relaying rather than before the next poll, and at most one
  // a shard every CHECKPOINT_EVERY_MS, the latest position only: the mapping in AWS keeps its
  // position without a table write, and a checkpoint a batch was a put (and a stream record to
  // read past) for every few events at a steady rate. A checkpoint that lags or fails only makes a
  // restarted stack relay those batches again (idempotent); the unwritten ones are written before
  // a checkpoint is read, a failed batch's position is written, or the poller stops.
  let checkpointing: Promise<void> = Promise.resolve()
  const unwritten = new Map<string, string>()
  let flushTimer: NodeJS.Timeout | undefined
  let flushedAt = 0
  const flush = (): Promise<void> => {
    clearTimeout(flushTimer)
    flushTimer = undefined
    const positions = [...unwritten]
    unwritten.clear()
    flushedAt = Date.now()
    checkpointing = checkpointing
      .then(async () => {
        for (const [shardId, sequenceNumber] of positions) await putCheckpoint(shardId, sequenceNumber)
      })
      .catch(() => undefined)
    return checkpointing
  }
  const checkpointBeside = (shardId: string, sequenceNumber: string) => {
    unwritten.set(shardId, sequenceNumber)
    flushTimer ??= setTimeout(flush, Math.max(0, flushedAt + CHECKPOINT_EVERY_MS - Date.now()))
  }
  let running = true
  let loop: Promise<void> = Promise.resolve()

  async function iteratorFor(streamArn: string, shardId: string): Promise<string | undefined> {
    await flush()
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

  function read(iterator: string): Promise<GetRecordsCommandOutput> {
    const page = streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: PAGE }))
    page.catch(() => undefined)
    return page
  }

  /**
   * @returns true when the shard may hold more right away (this page was relayed or full, or it was
   *   read ahead and came back empty: records may have arrived since)
   */
  async function pollShard(streamArn: string, shardId: string): Promise<boolean> {
    if (!iterators.has(shardId)) iterators.set(shardId, await iteratorFor(streamArn, shardId))
    const iterator = iterators.get(shardId)
    if (!iterator) return false
    const ahead = readAhead.get(shardId)
    readAhead.delete(shardId)
    let out
    try {
      out = await (ahead ?? read(iterator))
    } catch (err) {
      if (err instanceof ExpiredIteratorException) iterators.delete(shardId)
      throw err
    }
    const records = out.Records ?? []
    if (records.length === 0) {
      iterators.set(shardId, out.NextShardIterator)
      return ahead !== undefined
    }
    const batches = relayBatches(records, BATCH_SIZE)
    // The next page is read while this one is relayed, as the event source mapping's poller reads
    // ahead of its invocations; it is dropped if this page fails.
    if (out.NextShardIterator && (batches.length > 0 || records.length === PAGE)) {
      readAhead.set(shardId, read(out.NextShardIterator))
    }
    // Resume at the failed record on the next poll, as the event source mapping would: from the
    // checkpoint (the last batch relayed), then just before the record the relay reported.
    const retry = async (before?: string) => {
      readAhead.delete(shardId)
      iterators.delete(shardId)
      await flush()
      if (before) await putCheckpoint(shardId, before)
    }
    for (const batch of batches) {
      let failed
      try {
        failed = (await options.handler(toEvent([...batch.records]))).batchItemFailures[0]?.itemIdentifier
      } catch (err) {
        await retry()
        throw err
      }
      if (failed) {
        await retry(resumeBefore(records, failed))
        return false
      }
      // Checkpoint writes are stream records too: one a batch of events, none for a page without.
      if (batch.checkpoint) checkpointBeside(shardId, batch.checkpoint)
    }
    iterators.set(shardId, out.NextShardIterator)
    return batches.length > 0 || records.length === PAGE
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
      await flush()
    },
  }
}
