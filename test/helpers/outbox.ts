/**
 * The positive barrier for "this change sends nothing": the relay hands an outbox event on only
 * after its fan-out has written every record-store statement it makes and queued every webhook
 * delivery (their rows are written by the worker's first claim: `deliveries` is how many it
 * queued), so once an event is relayed, what it will ever send is known.
 */
import type { TenantContext } from '../../shared/domain/tenants/tenant.ts'
import { queryAll } from '../../shared/store/core/db.ts'
import { keys } from '../../shared/store/core/keys.ts'
import { until } from './until.ts'

export interface OutboxEventState {
  readonly id: string
  readonly event: string
  readonly data: Record<string, unknown>
  readonly relayed: boolean
  /** How many webhook deliveries the relay queued for it (once relayed). */
  readonly deliveries: number | undefined
}

async function outboxEvents(tenant: TenantContext): Promise<OutboxEventState[]> {
  const items = await queryAll({
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :sk)',
    ExpressionAttributeValues: { ':pk': keys.tenantPartition(tenant), ':sk': keys.outboxPrefix },
    ConsistentRead: true,
  })
  return items
    .filter((i) => i.type === 'event')
    .map((i) => ({
      id: i.event_id as string,
      event: i.event as string,
      data: i.data as Record<string, unknown>,
      relayed: i.relayed_at !== undefined,
      deliveries: typeof i.relayed_deliveries === 'number' ? i.relayed_deliveries : undefined,
    }))
}

/**
 * Waits until the relay has handed on every event the tenant's changes have written so far, and
 * returns them. Throws, naming what is still pending, when the relay does not get there in time:
 * a test then fails because the pipeline stalled, never because it was merely slow.
 */
export async function untilAllRelayed(
  tenant: TenantContext,
  timeoutMs = 30_000,
): Promise<OutboxEventState[]> {
  const events = await until(
    () => outboxEvents(tenant),
    (all) => all.every((e) => e.relayed),
    timeoutMs,
  )
  const pending = events.filter((e) => !e.relayed).map((e) => e.event)
  if (pending.length > 0) {
    throw new Error(`outbox events not relayed within ${timeoutMs} ms: ${pending.join(', ')}`)
  }
  return events
}
