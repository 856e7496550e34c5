/**
 * Relaying outbox events: fan out to webhook deliveries and record-store statements, then take the event out of the pending
 * index. The stream relay does this as events are written; the sweeper does it for any event the
 * stream has not relayed after a while (a relay that was down, a local stack killed mid-write),
 * so an event saved is an event sent. Both may relay the same event: fan-out is idempotent.
 */
import { mapLimit } from '../../concurrency.ts'
import { config } from '../../config.ts'
import type { Tenant } from '../../domain/tenants/tenant.ts'
import { errorFields, log } from '../../log.ts'
import {
  listPendingEvents,
  markAllRelayed,
  markRelayed,
  type PendingEvent,
} from '../../store/outbox/outbox-store.ts'
import { getTenantById } from '../../store/tenants/tenants-store.ts'
import { oncePerBatch } from '../core/batch-reads.ts'
import { fanOut, listLiveEndpoints } from '../deliveries/webhooks-service.ts'
import { fanOutStatements } from '../deliveries/xapi-service.ts'

/** What the events of one batch read once (shared/services/core/batch-reads.ts): tenants, endpoints. */
export interface RelayReads {
  readonly tenant: (tenantId: string) => Promise<Tenant | undefined>
  readonly liveEndpoints: typeof listLiveEndpoints
}

/** Fresh reads for one batch of events. */
export function relayReads(): RelayReads {
  return {
    tenant: oncePerBatch((id: string) => id, getTenantById),
    liveEndpoints: oncePerBatch((t) => t.id, listLiveEndpoints),
  }
}

/** What one event was fanned out to, by target. */
interface FannedOut {
  readonly deliveries: number
  readonly statements: number
}

/** Every fan-out target of one event (each idempotent), before the event is marked relayed. */
async function fanOutEvent(pending: PendingEvent, at: string, reads: RelayReads): Promise<FannedOut> {
  const tenant = await reads.tenant(pending.tenantId)
  if (!tenant) return { deliveries: 0, statements: 0 }
  return {
    deliveries: await fanOut(tenant, pending.event, at, reads.liveEndpoints),
    statements: await fanOutStatements(tenant, pending, at),
  }
}

function logRelayed(pending: PendingEvent, fanned: FannedOut): void {
  log('info', 'relayed', {
    eventId: pending.event.id,
    event: pending.event.event,
    tenantId: pending.tenantId,
    ...fanned,
  })
}

/** Relays one event: fans it out, then takes it out of the pending index. */
export async function relay(
  pending: PendingEvent,
  at = new Date().toISOString(),
  reads: RelayReads = relayReads(),
): Promise<void> {
  const fanned = await fanOutEvent(pending, at, reads)
  await markRelayed(pending.tenantId, pending.event, at, fanned.deliveries)
  logRelayed(pending, fanned)
}

/**
 * Relays a batch (the stream relay's): its events fanned out `concurrency` at a time, sharing their
 * reads, then those fanned out taken out of the pending index together (outbox-store
 * markAllRelayed). An event whose fan-out or marking failed stays pending for a retry.
 * @returns the positions in `events` of those that failed
 */
export async function relayAll(events: readonly PendingEvent[], concurrency: number): Promise<number[]> {
  const reads = relayReads()
  const failed: number[] = []
  const fanned = await mapLimit(events, concurrency, async (pending, index) => {
    try {
      return { pending, index, fanned: await fanOutEvent(pending, new Date().toISOString(), reads) }
    } catch (err) {
      log('error', 'relay failed', { eventId: pending.event.id, ...errorFields(err) })
      failed.push(index)
      return undefined
    }
  })
  const done = fanned.filter((f) => f !== undefined)
  try {
    await markAllRelayed(
      done.map((f) => ({ ...f.pending, deliveries: f.fanned.deliveries })),
      new Date().toISOString(),
    )
  } catch (err) {
    log('error', 'relay failed', { events: done.length, ...errorFields(err) })
    return [...failed, ...done.map((f) => f.index)]
  }
  for (const f of done) logRelayed(f.pending, f.fanned)
  return failed
}

/** Relays events still pending after `outboxSweepAfterMs`, oldest first, up to `limit` a sweep. @returns those relayed */
export async function sweep(now = Date.now(), limit = 100): Promise<PendingEvent[]> {
  const before = new Date(now - config.outboxSweepAfterMs).toISOString()
  const { readable, unreadable } = await listPendingEvents(before, limit)
  // Left pending (and reported every sweep) until it is repaired or expires with the outbox.
  for (const err of unreadable) log('error', 'unreadable outbox event not relayed', errorFields(err))
  const reads = relayReads()
  for (const p of readable) await relay(p, undefined, reads)
  return readable
}

/**
 * How long the longest-waiting of the (first `limit`) events still pending has waited since it was
 * saved, in whole seconds: the outbox's lag. The pending index is ordered by event time, which
 * `--at` can set in the past, so the wait is read from each one's save time, not from the order.
 * @returns undefined when no event is pending
 */
export async function oldestPendingAgeSeconds(now = Date.now(), limit = 100): Promise<number | undefined> {
  const { readable } = await listPendingEvents(new Date(now).toISOString(), limit)
  if (readable.length === 0) return undefined
  const oldest = Math.min(...readable.map((p) => Date.parse(p.recordedAt)))
  return Math.max(0, Math.floor((now - oldest) / 1000))
}
