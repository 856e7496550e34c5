/**
 * How the local stream poller turns a page of stream records into relay invocations, as the
 * DynamoDB Streams event source mapping of lib/lms-stack.ts does in AWS: its filter criteria keep
 * only the outbox items inserted (events and notifications) and a batch holds up to `batchSize`
 * of those. Everything else on the table's stream (deliveries, claims, relay marks, checkpoints:
 * about four records an event) is never handed to the relay, so it does not split the events into
 * small batches that each pay a batch's reads and marking.
 */

/** The part of a stream record the batching reads (the SDK's and Lambda's shapes both fit). */
export interface StreamRecordLike {
  readonly eventName?: string
  readonly dynamodb?: {
    readonly SequenceNumber?: string
    readonly NewImage?: { readonly type?: { readonly S?: string } }
  }
}

/** The item types the event source mapping's filter passes (lib/lms-stack.ts, `filters`). */
const RELAYED_TYPES: readonly string[] = ['event', 'notification']

/** The mapping's filter: an outbox item inserted. */
export function isRelayed(record: StreamRecordLike): boolean {
  return record.eventName === 'INSERT' && RELAYED_TYPES.includes(record.dynamodb?.NewImage?.type?.S ?? '')
}

export interface RelayBatch<R> {
  readonly records: readonly R[]
  /** Where the shard may resume once this batch is relayed (the page's last record for the last batch). */
  readonly checkpoint: string | undefined
}

/**
 * The relay batches of one page, in stream order. A page without relayed records gives none: there
 * is nothing to hand over, and its records need no checkpoint (skipping them again is free).
 */
export function relayBatches<R extends StreamRecordLike>(
  page: readonly R[],
  batchSize: number,
): RelayBatch<R>[] {
  const relayed = page.filter(isRelayed)
  const batches: RelayBatch<R>[] = []
  for (let i = 0; i < relayed.length; i += batchSize) {
    const records = relayed.slice(i, i + batchSize)
    const last = i + batchSize >= relayed.length
    batches.push({
      records,
      checkpoint: (last ? page.at(-1) : records.at(-1))?.dynamodb?.SequenceNumber,
    })
  }
  return batches
}

/**
 * Where the shard resumes when the relay reported `failed` (the earliest record it could not relay):
 * just before it, so it and everything after are read again, as the mapping retries. Undefined when
 * the failed record opens the page: the stored checkpoint is then already before it.
 */
export function resumeBefore<R extends StreamRecordLike>(
  page: readonly R[],
  failed: string,
): string | undefined {
  const at = page.findIndex((r) => r.dynamodb?.SequenceNumber === failed)
  return at > 0 ? page[at - 1]?.dynamodb?.SequenceNumber : undefined
}
