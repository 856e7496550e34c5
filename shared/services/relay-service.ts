/**
 * Relaying outbox events: fan out to webhook deliveries and record-store statements, then take the event out of the pending
 * index. The stream relay does this as events are written; the sweeper does it for any event the
 * stream has not relayed after a while (a relay that was down, a local stack killed mid-write),
 * so an event saved is an event sent. Both may relay the same event: fan-out is idempotent.
 */
import { config } from '../config.ts'
import { errorFields, log } from '../log.ts'
import { listPendingEvents, markRelayed, type PendingEvent } from '../store/outbox-store.ts'
import { getTenantById } from '../store/tenants-store.ts'
import { fanOut } from './webhooks-service.ts'
import { fanOutStatements } from './xapi-service.ts'

export async function relay(pending: PendingEvent, at = new Date().toISOString()): Promise<void> {
  const tenant = await getTenantById(pending.tenantId)
  const deliveries = tenant ? await fanOut(tenant, pending.event, at) : 0
  const statements = tenant ? await fanOutStatements(tenant, pending, at) : 0
  await markRelayed(pending.tenantId, pending.event, at)
  log('info', 'relayed', {
    eventId: pending.event.id,
    event: pending.event.event,
    tenantId: pending.tenantId,
    deliveries,
    statements,
  })
}

/** Relays events still pending after `outboxSweepAfterMs`, oldest first, up to `limit` a sweep. @returns how many */
export async function sweep(now = Date.now(), limit = 100): Promise<number> {
  const before = new Date(now - config.outboxSweepAfterMs).toISOString()
  const { readable, unreadable } = await listPendingEvents(before, limit)
  // Left pending (and reported every sweep) until it is repaired or expires with the outbox.
  for (const err of unreadable) log('error', 'unreadable outbox event not relayed', errorFields(err))
  for (const p of readable) await relay(p)
  return readable.length
}
