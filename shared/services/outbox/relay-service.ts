/**
 * Relaying the outbox, events and notifications alike: an event is fanned out to webhook
 * deliveries, record-store statements and LTI scores, a notification goes onto the notifications queue; then
 * the item leaves the pending index. The stream relay does this as items are written; the sweeper
 * does it for any the stream has not relayed after a while (a relay that was down, a local stack
 * killed mid-write), so what is saved is sent. Both may relay the same item: every hand-on is
 * idempotent (deliveries and statements by id, mail by its per-recipient marker).
 */
import { mapLimit } from '../../concurrency.ts'
import { config } from '../../config.ts'
import { errorFields, log } from '../../log.ts'
import {
  listPending,
  markAllRelayed,
  toOutboxEntry,
  type OutboxEntry,
  type PendingEvent,
  type Relayed,
} from '../../store/outbox/outbox-store.ts'
import { oncePerBatch } from '../core/batch-reads.ts'
import { queueNotification } from '../deliveries/mail-service.ts'
import { fanOut, listLiveEndpoints } from '../deliveries/webhooks-service.ts'
import { fanOutStatements } from '../deliveries/xapi-service.ts'
import { fanOutScores } from '../lti/lti-ags-service.ts'
import { tenantById } from '../tenants/tenant-cache.ts'

export type { OutboxEntry }

/**
 * The outbox entry of a stored item as the stream hands it over (unmarshalled).
 * @throws MalformedItem naming the item's key, never a value
 */
export const outboxEntryOf = toOutboxEntry

/** What the items of one batch read once (shared/services/core/batch-reads.ts): live endpoints. */
function relayReads() {
  return { liveEndpoints: oncePerBatch((t) => t.id, listLiveEndpoints) }
}
type RelayReads = ReturnType<typeof relayReads>

/** Every fan-out target of one event (each idempotent), before the event is marked relayed. */
async function fanOutEvent(pending: PendingEvent, at: string, reads: RelayReads) {
  const tenant = await tenantById(pending.tenantId)
  if (!tenant) return { deliveries: 0, statements: 0, scores: 0 }
  return {
    deliveries: await fanOut(tenant, pending.event, at, reads.liveEndpoints),
    statements: await fanOutStatements(tenant, pending, at),
    scores: await fanOutScores(tenant, pending),
  }
}

/** Hands one item on. @returns what marking it relayed records, and what its log line says */
async function handOn(entry: OutboxEntry, reads: RelayReads): Promise<Relayed & { logged: object }> {
  if (entry.kind === 'notification') {
    await queueNotification(entry)
    const n = entry.notification
    return { entry, logged: { notificationId: n.id, template: n.template, tenantId: entry.tenantId } }
  }
  const fanned = await fanOutEvent(entry, new Date().toISOString(), reads)
  const e = entry.event
  return {
    entry,
    deliveries: fanned.deliveries,
    logged: { eventId: e.id, event: e.event, tenantId: entry.tenantId, ...fanned },
  }
}

function idOf(entry: OutboxEntry): string {
  return entry.kind === 'event' ? entry.event.id : entry.notification.id
}

/**
 * Relays a batch (a stream batch, or a sweep): its items handed on `concurrency` at a time, sharing
 * their reads, then those handed on taken out of the pending index together (outbox-store
 * markAllRelayed). An item whose hand-on or marking failed stays pending for a retry.
 * @returns the positions in `entries` of those that failed
 */
export async function relayAll(entries: readonly OutboxEntry[], concurrency: number): Promise<number[]> {
  const reads = relayReads()
  const failed: number[] = []
  const handed = await mapLimit(entries, concurrency, async (entry, index) => {
    try {
      return { index, relayed: await handOn(entry, reads) }
    } catch (err) {
      log('error', 'relay failed', { kind: entry.kind, id: idOf(entry), ...errorFields(err) })
      failed.push(index)
      return undefined
    }
  })
  const done = handed.filter((h) => h !== undefined)
  try {
    await markAllRelayed(
      done.map((h) => h.relayed),
      new Date().toISOString(),
    )
  } catch (err) {
    log('error', 'relay failed', { items: done.length, ...errorFields(err) })
    return [...failed, ...done.map((h) => h.index)]
  }
  for (const h of done) log('info', 'relayed', { kind: h.relayed.entry.kind, ...h.relayed.logged })
  return failed
}

/** The sweep's concurrency: it runs behind the stream, so gently. */
const SWEEP_CONCURRENCY = 4

/**
 * Relays items still pending after `outboxSweepAfterMs`, oldest first, up to `limit` a sweep.
 * @returns how long the longest-waiting of them had waited since it was saved, in whole seconds
 *   (the outbox's lag; undefined when none was pending that long), those relayed, and how many
 *   failed (left pending for the next sweep)
 */
export async function sweep(
  now = Date.now(),
  limit = 100,
): Promise<{ lagSeconds: number | undefined; relayed: OutboxEntry[]; failed: number }> {
  const before = new Date(now - config.outboxSweepAfterMs).toISOString()
  const { readable, unreadable } = await listPending(before, limit)
  // Left pending (and reported every sweep) until it is repaired or expires with the outbox.
  for (const err of unreadable) log('error', 'unreadable outbox item not relayed', errorFields(err))
  const lagSeconds = lagOf(readable, now)
  const failed = new Set(await relayAll(readable, SWEEP_CONCURRENCY))
  return { lagSeconds, relayed: readable.filter((_, i) => !failed.has(i)), failed: failed.size }
}

/**
 * The longest wait among `pending` since each was saved. The pending index is ordered by event
 * time, which `--at` can set in the past, so an event's wait is read from its save time.
 */
function lagOf(pending: readonly OutboxEntry[], now: number): number | undefined {
  if (pending.length === 0) return undefined
  const savedAt = (e: OutboxEntry) => Date.parse(e.kind === 'event' ? e.recordedAt : e.notification.createdAt)
  return Math.max(0, Math.floor((now - Math.min(...pending.map(savedAt))) / 1000))
}
