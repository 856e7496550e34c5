/** Reading the outbox: the relay (and tests) see what a change wrote next to it. */
import type { TenantContext } from '../domain/tenants/tenant.ts'
import type { DomainEvent, EventType } from '../events/outbox.ts'
import { queryAll } from './db.ts'
import { keys } from './keys.ts'

export async function listOutboxEvents(tenant: TenantContext): Promise<DomainEvent[]> {
  const items = await queryAll({
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :sk)',
    ExpressionAttributeValues: { ':pk': keys.tenantPartition(tenant), ':sk': keys.outboxPrefix },
    ConsistentRead: true,
  })
  return items.map((i) => ({
    id: i.event_id as string,
    event: i.event as EventType,
    createdAt: i.created_at as string,
    data: i.data as Record<string, unknown>,
  }))
}
