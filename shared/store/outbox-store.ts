/** Reading the outbox: the relay (and tests) see what a change wrote next to it. */
import type { TenantContext } from '../domain/tenants/tenant.ts'
import type { DomainEvent, EventType, Notification } from '../events/outbox.ts'
import { queryAll } from './db.ts'
import { keys } from './keys.ts'

function outboxItems(tenant: TenantContext) {
  return queryAll({
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :sk)',
    ExpressionAttributeValues: { ':pk': keys.tenantPartition(tenant), ':sk': keys.outboxPrefix },
    ConsistentRead: true,
  })
}

export async function listOutboxEvents(tenant: TenantContext): Promise<DomainEvent[]> {
  const items = (await outboxItems(tenant)).filter((i) => i.type === 'event')
  return items.map((i) => ({
    id: i.event_id as string,
    event: i.event as EventType,
    createdAt: i.created_at as string,
    data: i.data as Record<string, unknown>,
  }))
}

export async function listOutboxNotifications(tenant: TenantContext): Promise<Notification[]> {
  const items = (await outboxItems(tenant)).filter((i) => i.type === 'notification')
  return items.map((i) => ({
    id: i.notification_id as string,
    template: i.template as Notification['template'],
    userId: i.user_id as string,
    createdAt: i.created_at as string,
    data: i.data as Record<string, unknown>,
  }))
}
