/**
 * Where an event's time goes between its write and its receiver, for `bench/events.ts`: each stage
 * is stamped per delivery from the product's own DynamoDB calls (the bench's wrapper on its sender,
 * never a production log), so the bench shows which wait makes the latency: the stream poll, the relay's
 * batch, the queue or the worker.
 */
import type { AwsCall } from '../test/helpers/dynamodb-calls.ts'

/** The stamps of one delivery, in ms since the epoch. */
interface Stamps {
  created?: number
  written?: number
  sent?: number
  marked?: number
  claimed?: number
  received?: number
}

type Stage = readonly [name: string, label: string, from: keyof Stamps, to: keyof Stamps]

const STAGES: readonly Stage[] = [
  ['write', 'write (event time → outbox write acknowledged)', 'created', 'written'],
  // The relay sends the delivery in its message (the worker's claim writes the row, decision 0015):
  // the stream's wait and the relay's fan-out end at the message, one stage.
  ['stream', 'stream and relay (write → message sent)', 'written', 'sent'],
  ['relayBatch', 'relay batch (message sent → event marked relayed)', 'sent', 'marked'],
  ['queue', 'queue (message sent → worker claims the delivery)', 'sent', 'claimed'],
  ['worker', 'worker (claim → receiver has the request)', 'claimed', 'received'],
  ['total', 'total (event time → receiver)', 'created', 'received'],
]

/** One stage's durations over the deliveries that reached both of its ends. */
export interface StageSummary {
  readonly name: string
  readonly label: string
  readonly p50: number
  readonly p95: number
  readonly n: number
}

const DELIVERY = /WHDELIVERY#([0-9a-f-]{36})/
const OUTBOX_EVENT = /OUTBOX#[^"#]*#([0-9a-f-]{36})/g

const percentile = (sorted: readonly number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0

export function stageTracer(deliveryIdOf: (eventId: string) => string) {
  const byDelivery = new Map<string, Stamps>()
  const stamp = (deliveryId: string, at: keyof Stamps, when = Date.now(), first = true) => {
    const s = byDelivery.get(deliveryId) ?? {}
    if (!first || s[at] === undefined) s[at] = when
    byDelivery.set(deliveryId, s)
  }

  return {
    /** Stamps the worker's claim and the marking of events relayed. */
    watchDynamo(wrapDynamoDbCalls: (wrap: (next: AwsCall) => AwsCall) => unknown): void {
      wrapDynamoDbCalls((next) => async (op, input) => {
        const text = JSON.stringify(input)
        const started = Date.now()
        const out = await next(op, input)
        const delivery = DELIVERY.exec(text)?.[1]
        if (op === 'UpdateItem' && delivery) stamp(delivery, 'claimed', started)
        // The bench's own event writes are transactions too, of puts: only updates mark an event.
        if (op === 'UpdateItem' || (op === 'TransactWriteItems' && text.includes('"Update":'))) {
          for (const m of text.matchAll(OUTBOX_EVENT)) if (m[1]) stamp(deliveryIdOf(m[1]), 'marked')
        }
        return out
      })
    },
    /** Stamps the relay's message to the webhooks queue, once it is accepted. */
    /** Stamps a delivery's message accepted by the queue (its body, as sent). */
    queued(body: string): void {
      const { deliveryId } = JSON.parse(body) as { deliveryId?: string }
      if (deliveryId) stamp(deliveryId, 'sent')
    },
    written(eventId: string, createdAt: string): void {
      const id = deliveryIdOf(eventId)
      stamp(id, 'created', Date.parse(createdAt))
      stamp(id, 'written')
    },
    received(deliveryId: string): void {
      stamp(deliveryId, 'received')
    },
    /** Forgets every stamp (after a warm-up). */
    clear(): void {
      byDelivery.clear()
    },
    /** p50 and p95 of each stage's duration over the deliveries that reached both ends. */
    summary(): StageSummary[] {
      return STAGES.map(([name, label, from, to]) => {
        const ds = [...byDelivery.values()]
          .flatMap((s) => (s[from] !== undefined && s[to] !== undefined ? [s[to] - s[from]] : []))
          .sort((a, b) => a - b)
        return { name, label, p50: percentile(ds, 0.5), p95: percentile(ds, 0.95), n: ds.length }
      })
    },
    /** One line a stage (summary). */
    report(): string[] {
      return this.summary().map(
        ({ label, p50, p95, n }) =>
          `  ${label.padEnd(52)} p50 ${String(p50).padStart(6)} ms  p95 ${String(p95).padStart(6)} ms  (n=${n})`,
      )
    },
  }
}
