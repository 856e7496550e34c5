/**
 * Webhook endpoints and deliveries. A delivery's attempts are claimed with a condition on the
 * attempt count, so a message SQS hands out twice never makes two attempts or counts one twice.
 */
import type { EventType } from '../domain/events.ts'
import type { DeliveryStatus, WebhookDelivery, WebhookEndpoint } from '../domain/webhooks/webhook.ts'
import type { TenantContext } from '../domain/tenants/tenant.ts'
import {
  deleteItem,
  getItem,
  conditionally,
  putItem,
  queryAll,
  queryCount,
  queryUpTo,
  updateItem,
  type Item,
} from './db.ts'
import { attemptRecordedOn, claimAttemptOn, recordOutcomeOn } from './attempts.ts'
import { indexes, keys, TTL_ATTRIBUTE } from './keys.ts'

/** What the tenant-wide index means for deliveries. */
const byCreated = indexes.gsi1

/** Deliveries stay viewable for 90 days, the spec's delivery-log retention. */
const DELIVERY_RETENTION_SECONDS = 90 * 86_400

function toEndpoint(item: Item): WebhookEndpoint {
  return {
    id: item.id as string,
    url: item.url as string,
    events: item.events as EventType[],
    sealedSecret: item.sealed_secret as string,
    createdAt: item.created_at as string,
    deletedAt: (item.deleted_at as string | null | undefined) ?? null,
  }
}

export async function insertEndpoint(tenant: TenantContext, e: WebhookEndpoint): Promise<void> {
  await putItem({
    Item: {
      ...keys.webhookEndpoint(tenant, e.id),
      type: 'webhook_endpoint',
      id: e.id,
      url: e.url,
      events: [...e.events],
      sealed_secret: e.sealedSecret,
      created_at: e.createdAt,
      deleted_at: null,
    },
    ConditionExpression: 'attribute_not_exists(pk)',
  })
}

export async function getEndpoint(tenant: TenantContext, id: string): Promise<WebhookEndpoint | undefined> {
  const item = await getItem(keys.webhookEndpoint(tenant, id))
  return item ? toEndpoint(item) : undefined
}

/** Every endpoint, deleted ones included (deliveries still name them). */
export async function listEndpoints(tenant: TenantContext): Promise<WebhookEndpoint[]> {
  const items = await queryAll({
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :sk)',
    ExpressionAttributeValues: { ':pk': keys.tenantPartition(tenant), ':sk': keys.webhookEndpointPrefix },
  })
  return items.map(toEndpoint)
}

/** Deleting stops delivery; the sealed secret is erased with it. @returns false if already deleted. */
export async function deleteEndpoint(tenant: TenantContext, id: string, at: string): Promise<boolean> {
  return conditionally(
    updateItem({
      Key: keys.webhookEndpoint(tenant, id),
      UpdateExpression: 'SET deleted_at = :at, sealed_secret = :gone',
      ConditionExpression: 'attribute_exists(pk) AND deleted_at = :null',
      ExpressionAttributeValues: { ':at': at, ':gone': '', ':null': null },
    }),
  )
}

function toDelivery(item: Item): WebhookDelivery {
  return {
    id: item.id as string,
    endpointId: item.endpoint_id as string,
    eventId: item.event_id as string,
    event: item.event as EventType,
    status: item.status as DeliveryStatus,
    attempts: (item.attempts as number | undefined) ?? 0,
    httpStatus: (item.http_status as number | null | undefined) ?? null,
    responseBody: (item.response_body as string | null | undefined) ?? null,
    reason: (item.reason as string | null | undefined) ?? null,
    payload: item.payload as string,
    envelopeId: item.envelope_id as string,
    retryOf: (item.retry_of as string | null | undefined) ?? null,
    createdAt: item.created_at as string,
    updatedAt: item.updated_at as string,
    attemptRecorded: attemptRecordedOn(item),
  }
}

/** @returns false when the delivery exists already (a relayed event seen again). */
export async function insertDelivery(tenant: TenantContext, d: WebhookDelivery): Promise<boolean> {
  return conditionally(
    putItem({
      Item: {
        ...keys.webhookDelivery(tenant, d.id),
        type: 'webhook_delivery',
        id: d.id,
        endpoint_id: d.endpointId,
        event_id: d.eventId,
        event: d.event,
        status: d.status,
        attempts: d.attempts,
        http_status: d.httpStatus,
        response_body: d.responseBody,
        reason: d.reason,
        payload: d.payload,
        envelope_id: d.envelopeId,
        retry_of: d.retryOf,
        created_at: d.createdAt,
        updated_at: d.updatedAt,
        [TTL_ATTRIBUTE]: Math.floor(Date.parse(d.createdAt) / 1000) + DELIVERY_RETENTION_SECONDS,
        [byCreated.pk]: keys.webhookDeliveriesIndexPk(tenant),
        [byCreated.sk]: keys.webhookDeliveriesByCreated(d.createdAt, d.id),
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  )
}

export async function deleteDelivery(tenant: TenantContext, id: string): Promise<void> {
  await deleteItem({ Key: keys.webhookDelivery(tenant, id) })
}

export async function getDelivery(tenant: TenantContext, id: string): Promise<WebhookDelivery | undefined> {
  const item = await getItem(keys.webhookDelivery(tenant, id), { ConsistentRead: true })
  return item ? toDelivery(item) : undefined
}

export interface DeliveryPageQuery {
  readonly status?: DeliveryStatus
  readonly event?: EventType
  readonly offset: number
  readonly limit: number
}

/**
 * A page of the deliveries view, newest first, with the total: read from the tenant's
 * by-creation index, never the whole set in memory (a busy tenant keeps 90 days of them).
 */
export async function listDeliveriesPage(
  tenant: TenantContext,
  q: DeliveryPageQuery,
): Promise<{ items: WebhookDelivery[]; total: number }> {
  const filters: string[] = []
  const names: Record<string, string> = { '#pk': byCreated.pk }
  const values: Record<string, unknown> = { ':pk': keys.webhookDeliveriesIndexPk(tenant) }
  if (q.status) {
    filters.push('#status = :status')
    names['#status'] = 'status'
    values[':status'] = q.status
  }
  if (q.event) {
    filters.push('#event = :event')
    names['#event'] = 'event'
    values[':event'] = q.event
  }
  const input = {
    IndexName: byCreated.name,
    KeyConditionExpression: '#pk = :pk',
    ...(filters.length ? { FilterExpression: filters.join(' AND ') } : {}),
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  }
  const [items, total] = await Promise.all([
    queryUpTo({ ...input, ScanIndexForward: false }, q.offset + q.limit),
    queryCount(input),
  ])
  return { items: items.slice(q.offset, q.offset + q.limit).map(toDelivery), total }
}

export async function listDeliveries(tenant: TenantContext): Promise<WebhookDelivery[]> {
  const items = await queryAll({
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :sk)',
    ExpressionAttributeValues: { ':pk': keys.tenantPartition(tenant), ':sk': keys.webhookDeliveryPrefix },
  })
  return items.map(toDelivery)
}

/** Takes attempt number `attempt` if nobody has: @returns false for a duplicate or finished delivery. */
export function claimAttempt(
  tenant: TenantContext,
  id: string,
  attempt: number,
  at: string,
): Promise<boolean> {
  return claimAttemptOn(keys.webhookDelivery(tenant, id), attempt, at)
}

/** Records the outcome of the attempt this worker claimed; the delivery may stay pending. */
export function recordAttempt(
  tenant: TenantContext,
  id: string,
  attempt: number,
  outcome: {
    status: DeliveryStatus
    httpStatus: number | null
    responseBody: string | null
    reason: string | null
  },
  at: string,
): Promise<void> {
  return recordOutcomeOn(
    keys.webhookDelivery(tenant, id),
    attempt,
    {
      status: outcome.status,
      http_status: outcome.httpStatus,
      response_body: outcome.responseBody,
      reason: outcome.reason,
    },
    at,
  )
}
