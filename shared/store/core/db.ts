/**
 * The senders: every DynamoDB call goes through here, through the SDK's document client
 * (shared/aws/dynamodb.ts), so each one asks for its consumed capacity, records it, and maps
 * throttling and time-outs to a retryable domain error. Store modules build params; this module
 * sends them.
 */
import {
  QueryCommand as RawQueryCommand,
  type AttributeValue,
  type CancellationReason,
} from '@aws-sdk/client-dynamodb'
import {
  BatchGetCommand,
  BatchWriteCommand,
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
  TransactWriteCommand,
  UpdateCommand,
  type BatchWriteCommandInput,
  type DeleteCommandInput,
  type GetCommandInput,
  type PutCommandInput,
  type QueryCommandInput,
  type QueryCommandOutput,
  type ScanCommandInput,
  type TransactWriteCommandInput,
  type UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb'
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb'
import { documents, dynamoDb } from '../../aws/dynamodb.ts'
import { config } from '../../config.ts'
import { ServiceUnavailableError } from '../../domain/errors.ts'
import type { Key } from './keys.ts'
import { recordDbCall } from './metrics.ts'

export const tableName = config.tableName

export type Item = Record<string, unknown>
export type AttributeMap = Record<string, AttributeValue>
type WithoutTable<T> = Omit<T, 'TableName'>

/**
 * Failures another attempt may cure, once the SDK's own retries are spent: throttling, the
 * service's own faults, and a call that ran out of time or lost its connection.
 */
const TRANSIENT = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'InternalServerError',
  'ServiceUnavailable',
  'TimeoutError',
])
const TRANSIENT_NETWORK = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT'])

function isTransient(err: unknown): boolean {
  if (!(err instanceof Error)) return false
  const code = (err as { code?: unknown }).code
  return TRANSIENT.has(err.name) || (typeof code === 'string' && TRANSIENT_NETWORK.has(code))
}

function mapInfrastructureError(err: unknown): never {
  if (isTransient(err)) throw new ServiceUnavailableError({ cause: err })
  throw err
}

/**
 * A batch read or write whose unprocessed keys or items stayed unprocessed through every attempt
 * (DynamoDB throttled them each time): 503, the caller may retry the whole.
 */
export class UnprocessedItemsLeft extends ServiceUnavailableError {}

export async function getItem(key: Key, options: WithoutTable<Omit<GetCommandInput, 'Key'>> = {}) {
  try {
    const out = await documents.send(
      new GetCommand({ TableName: tableName, Key: key, ReturnConsumedCapacity: 'TOTAL', ...options }),
    )
    recordDbCall('GetItem', out.ConsumedCapacity)
    return out.Item
  } catch (err) {
    return mapInfrastructureError(err)
  }
}

export type QueryOutput = Omit<QueryCommandOutput, '$metadata'>

export async function query(input: WithoutTable<QueryCommandInput>): Promise<QueryOutput> {
  try {
    const out = await documents.send(
      new QueryCommand({ TableName: tableName, ReturnConsumedCapacity: 'TOTAL', ...input }),
    )
    recordDbCall('Query', out.ConsumedCapacity)
    return out
  } catch (err) {
    return mapInfrastructureError(err)
  }
}

/** A page of a Query as DynamoDB sends it: items and cursor in AttributeValue form. */
export interface RawPage {
  readonly items: AttributeMap[]
  readonly next: AttributeMap | undefined
}

/**
 * A Query whose items are left in DynamoDB's AttributeValue form (left untranslated),
 * for the few long reads whose decoder reads the attributes directly (store/export-row-items.ts).
 * `start` is the previous page's `next`, passed back as it came.
 */
export async function queryRaw(
  input: WithoutTable<Omit<QueryCommandInput, 'ExclusiveStartKey'>>,
  start?: AttributeMap,
): Promise<RawPage> {
  const { ExpressionAttributeValues: values, ...rest } = input
  try {
    const out = await dynamoDb.send(
      new RawQueryCommand({
        TableName: tableName,
        ReturnConsumedCapacity: 'TOTAL',
        ...rest,
        ...(values ? { ExpressionAttributeValues: marshall(values, { removeUndefinedValues: true }) } : {}),
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    )
    recordDbCall('Query', out.ConsumedCapacity)
    return { items: out.Items ?? [], next: out.LastEvaluatedKey }
  } catch (err) {
    return mapInfrastructureError(err)
  }
}

/** Follows LastEvaluatedKey until `want` items are collected (or the partition ends). */
export async function queryUpTo(input: WithoutTable<QueryCommandInput>, want: number): Promise<Item[]> {
  const items: Item[] = []
  let start: Record<string, unknown> | undefined
  do {
    const out = await query({ ...input, ...(start ? { ExclusiveStartKey: start } : {}) })
    items.push(...((out.Items ?? []) as Item[]))
    start = out.LastEvaluatedKey
  } while (start && items.length < want)
  return items.slice(0, want)
}

export async function queryAll(input: WithoutTable<QueryCommandInput>): Promise<Item[]> {
  return queryUpTo(input, Number.POSITIVE_INFINITY)
}

/** One page of a Scan: the items the filter kept, how many it read, and where the next page starts. */
export interface ScanPage {
  readonly items: Item[]
  readonly scanned: number
  readonly next: Record<string, unknown> | undefined
}

/**
 * One page of a Scan of the table. Only the migration runner scans (an operator's job that reads
 * every item once, page by page, with its cursor saved between pages); requests never do.
 */
export async function scanPage(input: WithoutTable<ScanCommandInput>): Promise<ScanPage> {
  try {
    const out = await documents.send(
      new ScanCommand({ TableName: tableName, ReturnConsumedCapacity: 'TOTAL', ...input }),
    )
    recordDbCall('Scan', out.ConsumedCapacity)
    return { items: (out.Items ?? []) as Item[], scanned: out.ScannedCount ?? 0, next: out.LastEvaluatedKey }
  } catch (err) {
    return mapInfrastructureError(err)
  }
}

/** Counts matching items without returning them (still reads them: cost grows with the partition). */
export async function queryCount(input: WithoutTable<QueryCommandInput>): Promise<number> {
  let count = 0
  let start: Record<string, unknown> | undefined
  do {
    const out = await query({ ...input, Select: 'COUNT', ...(start ? { ExclusiveStartKey: start } : {}) })
    count += out.Count ?? 0
    start = out.LastEvaluatedKey
  } while (start)
  return count
}

export async function putItem(input: WithoutTable<PutCommandInput>): Promise<void> {
  try {
    const out = await documents.send(
      new PutCommand({ TableName: tableName, ReturnConsumedCapacity: 'TOTAL', ...input }),
    )
    recordDbCall('PutItem', out.ConsumedCapacity)
  } catch (err) {
    mapInfrastructureError(err)
  }
}

/** @returns the deleted item's attributes when `ReturnValues: 'ALL_OLD'` asked for them. */
export async function deleteItem(input: WithoutTable<DeleteCommandInput>): Promise<Item | undefined> {
  try {
    const out = await documents.send(
      new DeleteCommand({ TableName: tableName, ReturnConsumedCapacity: 'TOTAL', ...input }),
    )
    recordDbCall('DeleteItem', out.ConsumedCapacity)
    return out.Attributes
  } catch (err) {
    return mapInfrastructureError(err)
  }
}

export async function updateItem(input: WithoutTable<UpdateCommandInput>): Promise<Item | undefined> {
  try {
    const out = await documents.send(
      new UpdateCommand({ TableName: tableName, ReturnConsumedCapacity: 'TOTAL', ...input }),
    )
    recordDbCall('UpdateItem', out.ConsumedCapacity)
    return out.Attributes
  } catch (err) {
    return mapInfrastructureError(err)
  }
}

/** What a conditional update came to: the item as written, or as it stands when refused. */
export type UpdateOutcome = { readonly updated: Item } | { readonly refused: Item | undefined }

/**
 * A conditional update that reads as it writes: the item after the update, or, when the condition
 * did not hold, the item as it stands (undefined when there is none). One round trip either way,
 * where a read before the write would take two.
 */
export async function updateOrCurrent(input: WithoutTable<UpdateCommandInput>): Promise<UpdateOutcome> {
  try {
    const out = await documents.send(
      new UpdateCommand({
        TableName: tableName,
        ReturnConsumedCapacity: 'TOTAL',
        ...input,
        ReturnValues: 'ALL_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    )
    recordDbCall('UpdateItem', out.ConsumedCapacity)
    return { updated: out.Attributes ?? {} }
  } catch (err) {
    // The document client leaves a refusal as DynamoDB sent it: the item in attribute values.
    if (isConditionalCheckFailed(err)) {
      const item = (err as { Item?: AttributeMap }).Item
      return { refused: item && unmarshall(item) }
    }
    return mapInfrastructureError(err)
  }
}

type RawTransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number]

/** A transaction item without TableName: the sender adds it. */
export interface TransactItem {
  Put?: Omit<NonNullable<RawTransactItem['Put']>, 'TableName'>
  Update?: Omit<NonNullable<RawTransactItem['Update']>, 'TableName'>
  Delete?: Omit<NonNullable<RawTransactItem['Delete']>, 'TableName'>
  ConditionCheck?: Omit<NonNullable<RawTransactItem['ConditionCheck']>, 'TableName'>
}

/** Thrown when a condition in a transaction failed; `index` says which item's condition. */
export class TransactionConditionFailed extends Error {
  constructor(readonly reasons: readonly (CancellationReason | undefined)[]) {
    super('A transaction condition failed')
    this.name = 'TransactionConditionFailed'
  }
  failedAt(index: number): boolean {
    return this.reasons[index]?.Code === 'ConditionalCheckFailed'
  }
}

const MAX_CONFLICT_RETRIES = 8

/**
 * Cancellation reasons that say "try again later", not "this write is wrong": another transaction
 * held the item, or the table or partition was throttled. `None` marks the items that were fine.
 */
const TRANSIENT_CANCELLATIONS = new Set([
  'None',
  'TransactionConflict',
  'ThrottlingError',
  'ProvisionedThroughputExceeded',
])

/**
 * Writes all items or none. Conflicts with a concurrent transaction on the same item (hot counters)
 * are retried with jittered backoff; a failed condition surfaces as TransactionConditionFailed; a
 * cancellation that stays transient (conflicts after the retries, throttling) surfaces as
 * ServiceUnavailableError. Any other cancellation (a ValidationError: an item too large) is a
 * fault of the write and is rethrown as it is.
 */
export async function transact(items: TransactItem[]): Promise<void> {
  const TransactItems = items.map((item) => withTable(item))
  for (let attempt = 0; ; attempt++) {
    try {
      // The SDK gives the call a ClientRequestToken, kept through its own retries: a retry of a
      // transaction whose answer was lost is answered as the first, not refused by its conditions.
      const out = await documents.send(
        new TransactWriteCommand({ TransactItems, ReturnConsumedCapacity: 'TOTAL' }),
      )
      recordDbCall('TransactWriteItems', out.ConsumedCapacity)
      return
    } catch (err) {
      if (!isTransactionCanceled(err)) return mapInfrastructureError(err)
      const reasons = err.CancellationReasons ?? []
      if (reasons.some((r) => r.Code === 'ConditionalCheckFailed'))
        throw new TransactionConditionFailed(reasons)
      const transient = reasons.length > 0 && reasons.every((r) => TRANSIENT_CANCELLATIONS.has(r.Code ?? ''))
      if (!transient) throw err
      if (reasons.some((r) => r.Code === 'TransactionConflict') && attempt < MAX_CONFLICT_RETRIES) {
        await sleep(10 * 2 ** attempt * Math.random())
        continue
      }
      throw new ServiceUnavailableError({ cause: err })
    }
  }
}

function withTable(item: TransactItem): RawTransactItem {
  if (item.Put) return { Put: { ...item.Put, TableName: tableName } }
  if (item.Update) return { Update: { ...item.Update, TableName: tableName } }
  if (item.Delete) return { Delete: { ...item.Delete, TableName: tableName } }
  if (item.ConditionCheck) return { ConditionCheck: { ...item.ConditionCheck, TableName: tableName } }
  throw new Error('Empty transaction item')
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const BATCH_GET_MAX = 100
const BATCH_WRITE_MAX = 25

/**
 * Calls of one batch in all, the first included: DynamoDB hands back what it throttled as
 * unprocessed, and each further call, after a jittered backoff (25 ms doubling, at most 1 s),
 * sends only that. Past the last, UnprocessedItemsLeft.
 */
export const BATCH_ATTEMPTS = 8

const backoff = (attempt: number) => sleep(Math.random() * Math.min(1_000, 25 * 2 ** attempt))

/**
 * Sends `first` and then, while the answer leaves some of it unprocessed, that rest, at most
 * BATCH_ATTEMPTS calls in all.
 */
async function untilProcessed<T>(
  first: T[],
  send: (pending: T[]) => Promise<T[] | undefined>,
): Promise<void> {
  let pending = first
  for (let attempt = 0; pending.length > 0; attempt++) {
    if (attempt >= BATCH_ATTEMPTS) throw new UnprocessedItemsLeft()
    if (attempt > 0) await backoff(attempt)
    try {
      pending = (await send(pending)) ?? []
    } catch (err) {
      mapInfrastructureError(err)
    }
  }
}

/** Reads many items by key (100 per call), retrying unprocessed keys. Order is not kept. */
export async function batchGet(
  keyList: Key[],
  projection?: string,
  names?: Record<string, string>,
): Promise<Item[]> {
  const out: Item[] = []
  for (let i = 0; i < keyList.length; i += BATCH_GET_MAX) {
    const chunk: Item[] = keyList.slice(i, i + BATCH_GET_MAX).map((k) => ({ ...k }))
    await untilProcessed(chunk, async (Keys) => {
      const res = await documents.send(
        new BatchGetCommand({
          RequestItems: {
            [tableName]: {
              Keys,
              ...(projection ? { ProjectionExpression: projection } : {}),
              ...(names ? { ExpressionAttributeNames: names } : {}),
            },
          },
          ReturnConsumedCapacity: 'TOTAL',
        }),
      )
      recordDbCall('BatchGetItem', res.ConsumedCapacity)
      out.push(...((res.Responses?.[tableName] ?? []) as Item[]))
      return res.UnprocessedKeys?.[tableName]?.Keys
    })
  }
  return out
}

type WriteRequest = NonNullable<BatchWriteCommandInput['RequestItems']>[string][number]

/** Sends write requests 25 per call, `concurrency` calls in flight, retrying unprocessed ones. */
async function batchWrite(requests: WriteRequest[], concurrency: number): Promise<void> {
  let next = 0
  const worker = async (): Promise<void> => {
    while (next < requests.length) {
      const start = next
      next += BATCH_WRITE_MAX
      await untilProcessed(requests.slice(start, start + BATCH_WRITE_MAX), async (pending) => {
        const res = await documents.send(
          new BatchWriteCommand({ RequestItems: { [tableName]: pending }, ReturnConsumedCapacity: 'TOTAL' }),
        )
        recordDbCall('BatchWriteItem', res.ConsumedCapacity)
        return res.UnprocessedItems?.[tableName]
      })
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, concurrency) }, worker))
}

/** Deletes many items. Not atomic: for clean-ups only. */
export function batchDelete(keyList: Key[], concurrency = 1): Promise<void> {
  return batchWrite(
    keyList.map((k) => ({ DeleteRequest: { Key: { ...k } } })),
    concurrency,
  )
}

/** Puts many items without conditions. Not atomic: for bulk loads into empty partitions only. */
export function batchPut(items: Item[], concurrency = 1): Promise<void> {
  return batchWrite(
    items.map((Item) => ({ PutRequest: { Item } })),
    concurrency,
  )
}

/** A cancelled transaction, with DynamoDB's reason for each of its items. */
function isTransactionCanceled(
  err: unknown,
): err is Error & { CancellationReasons?: readonly CancellationReason[] } {
  return err instanceof Error && err.name === 'TransactionCanceledException'
}

/** A single-item write whose ConditionExpression did not hold. */
export function isConditionalCheckFailed(err: unknown): boolean {
  return err instanceof Error && err.name === 'ConditionalCheckFailedException'
}

/** Runs a conditional single-item write: @returns false when its condition did not hold. */
export async function conditionally(write: Promise<unknown>): Promise<boolean> {
  try {
    await write
    return true
  } catch (err) {
    if (isConditionalCheckFailed(err)) return false
    throw err
  }
}
