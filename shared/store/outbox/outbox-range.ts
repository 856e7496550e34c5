/**
 * A tenant's stored events of a time range, read from the base table's own keys: the outbox items
 * `OUTBOX#<created_at>#<id>` of the tenant's partition, between two instants, a Query (never a
 * Scan) in pages. Notifications share the key range and are filtered out, as are the event types
 * not asked for (decision 0048: webhook replay).
 */
import type { QueryCommandInput } from '@aws-sdk/lib-dynamodb'
import * as v from 'valibot'
import type { DomainEvent, EventType } from '../../domain/events.ts'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import { query, queryCount } from '../core/db.ts'
import { cond, queryExpression } from '../core/expression.ts'
import { keys } from '../core/keys.ts'
import { toOutboxEntry } from './outbox-store.ts'

export interface EventRange {
  /** Exclusive bounds, as `toISOString` writes instants (the form created_at is stored in). */
  readonly after: string
  readonly before: string
  readonly events: readonly EventType[]
}

/** Where the next page starts: the base table key of the last item read. */
export const PageStart = v.object({ pk: v.string(), sk: v.string() })
export type PageStart = v.InferOutput<typeof PageStart>

/**
 * `OUTBOX#<after>#~` sorts after every item of the instant `after` (ids are UUIDs, below `~`), and
 * `OUTBOX#<before>#` before every item of `before`: BETWEEN them holds exactly the instants
 * strictly between.
 */
export function eventRangeParams(tenant: TenantContext, r: EventRange): Omit<QueryCommandInput, 'TableName'> {
  const pk = keys.tenantPartition(tenant)
  return queryExpression({
    key: cond.and(
      cond.eq('pk', pk),
      cond.between('sk', `${keys.outboxPrefix}${r.after}#~`, `${keys.outboxPrefix}${r.before}#`),
    ),
    filter: cond.and(cond.eq('type', 'event'), cond.oneOf('event', r.events)),
  })
}

/** How many events the range holds (a COUNT Query: no item leaves the table). */
export function countEventsInRange(tenant: TenantContext, r: EventRange): Promise<number> {
  return queryCount(eventRangeParams(tenant, r))
}

/**
 * One page of the range, oldest first: the events among the first `limit` items read (the filter
 * applies after the limit, so a page may hold fewer, even none), and where the next page starts.
 */
export async function eventRangePage(
  tenant: TenantContext,
  r: EventRange,
  limit: number,
  start?: PageStart,
): Promise<{ events: DomainEvent[]; next: PageStart | undefined }> {
  const out = await query({
    ...eventRangeParams(tenant, r),
    Limit: limit,
    ...(start ? { ExclusiveStartKey: start } : {}),
  })
  const events = (out.Items ?? []).flatMap((item) => {
    const entry = toOutboxEntry(item)
    return entry.kind === 'event' ? [entry.event] : []
  })
  return { events, next: out.LastEvaluatedKey ? v.parse(PageStart, out.LastEvaluatedKey) : undefined }
}
