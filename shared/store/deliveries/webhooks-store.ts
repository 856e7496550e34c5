/**
 * Webhook endpoints and deliveries. Deliveries are a delivery log (shared/store/deliveries/delivery-log.ts):
 * their attempts are claimed with a condition on the attempt count, so a message SQS hands out
 * twice never makes two attempts or counts one twice.
 */
import * as v from 'valibot'
import type { EventType } from '../../domain/events.ts'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import {
  eventCatalog,
  type DeliveryStatus,
  type WebhookDelivery,
  type WebhookEndpoint,
} from '../../domain/webhooks/webhook.ts'
import { conditionally, getItem, putItem, queryAll, queryCount, queryUpTo, updateItem } from '../core/db.ts'
import { nullable } from '../core/decode.ts'
import { defineEntity, field } from '../core/entity.ts'
import { attemptFields, deliveryLog } from './delivery-log.ts'
import {
  cond,
  conditionExpression,
  queryExpression,
  updateExpression,
  type Condition,
} from '../core/expression.ts'
import { indexes, keys } from '../core/keys.ts'

/** What the tenant-wide index means for deliveries. */
const byCreated = indexes.gsi1

const endpointEntity = defineEntity(
  'webhook_endpoint',
  {
    id: field('id', v.string()),
    url: field('url', v.string()),
    events: field('events', v.pipe(v.array(v.picklist(eventCatalog)), v.readonly())),
    sealedSecret: field('sealed_secret', v.string()),
    createdAt: field('created_at', v.string()),
    // Stored as null while live: the delete's condition compares it with null.
    deletedAt: field('deleted_at', nullable(v.string())),
  },
  { key: (tenant: TenantContext, e) => keys.webhookEndpoint(tenant, e.id) },
)

const decodeEndpoint = (item: Record<string, unknown>): WebhookEndpoint => endpointEntity.decode(item)

export const endpointParams = {
  insert: (tenant: TenantContext, e: WebhookEndpoint) => ({
    Item: endpointEntity.item(tenant, { ...e, deletedAt: null }),
    ...conditionExpression(cond.notExists()),
  }),

  list: (tenant: TenantContext) =>
    queryExpression({
      key: cond.and(
        cond.eq('pk', keys.tenantPartition(tenant)),
        cond.beginsWith('sk', keys.webhookEndpointPrefix),
      ),
    }),

  /** Deleting stops delivery; the sealed secret is erased with it. Refused if already deleted. */
  delete: (tenant: TenantContext, id: string, at: string) => ({
    Key: keys.webhookEndpoint(tenant, id),
    ...updateExpression(
      { set: { deleted_at: at, sealed_secret: '' } },
      cond.and(cond.exists(), cond.eq('deleted_at', null)),
    ),
  }),
}

export async function insertEndpoint(tenant: TenantContext, e: WebhookEndpoint): Promise<void> {
  await putItem(endpointParams.insert(tenant, e))
}

export async function getEndpoint(tenant: TenantContext, id: string): Promise<WebhookEndpoint | undefined> {
  const item = await getItem(keys.webhookEndpoint(tenant, id))
  return item ? decodeEndpoint(item) : undefined
}

/** Every endpoint, deleted ones included (deliveries still name them). */
export async function listEndpoints(tenant: TenantContext): Promise<WebhookEndpoint[]> {
  return (await queryAll(endpointParams.list(tenant))).map(decodeEndpoint)
}

/** @returns false if already deleted (or never created). */
export function deleteEndpoint(tenant: TenantContext, id: string, at: string): Promise<boolean> {
  return conditionally(updateItem(endpointParams.delete(tenant, id, at)))
}

/** What one attempt came to, recorded on the delivery. */
export type DeliveryOutcome = Pick<WebhookDelivery, 'status' | 'httpStatus' | 'responseBody' | 'reason'>

/** Response body and retry-of stay stored as null while there are none, as outcomes set them. */
const deliveryEntity = defineEntity(
  'webhook_delivery',
  {
    ...attemptFields,
    endpointId: field('endpoint_id', v.string()),
    eventId: field('event_id', v.string()),
    event: field('event', v.picklist(eventCatalog)),
    responseBody: field('response_body', nullable(v.string())),
    payload: field('payload', v.string()),
    envelopeId: field('envelope_id', v.string()),
    retryOf: field('retry_of', nullable(v.string())),
  },
  {
    key: (tenant: TenantContext, d) => keys.webhookDelivery(tenant, d.id),
    derived: (tenant, d) => ({
      [byCreated.pk]: keys.webhookDeliveriesIndexPk(tenant),
      [byCreated.sk]: keys.webhookDeliveriesByCreated(d.createdAt, d.id),
    }),
  },
)

export const deliveries = deliveryLog({
  entity: deliveryEntity,
  key: keys.webhookDelivery,
  prefix: keys.webhookDeliveryPrefix,
  ownOutcome: (o: DeliveryOutcome) => ({ response_body: o.responseBody }),
})

export const getDelivery = deliveries.get
/** The claim read as it is written: the row as claimed, or as it stands when refused. */
export const claimAttemptRow = deliveries.claimRow
/** The first attempt's claim of a new delivery: the one writer of its row (decisions 0015, 0028). */
export const claimNewDeliveryRow = deliveries.claimNewRow
/** Records the outcome of the attempt this worker claimed; the delivery may stay pending. */
export const recordAttempt = deliveries.record

export interface DeliveryPageQuery {
  readonly status?: DeliveryStatus
  readonly event?: EventType
  readonly offset: number
  readonly limit: number
}

/** The deliveries view's query on the tenant's by-creation index (without order or paging). */
export function deliveriesPageParams(tenant: TenantContext, q: Pick<DeliveryPageQuery, 'status' | 'event'>) {
  const filters: Condition[] = [
    ...(q.status ? [cond.eq('status', q.status)] : []),
    ...(q.event ? [cond.eq('event', q.event)] : []),
  ]
  return {
    IndexName: byCreated.name,
    ...queryExpression({
      key: cond.eq(byCreated.pk, keys.webhookDeliveriesIndexPk(tenant)),
      ...(filters.length > 0 ? { filter: cond.and(...filters) } : {}),
    }),
  }
}

/**
 * A page of the deliveries view, newest first, with the total: read from the tenant's
 * by-creation index, never the whole set in memory (a busy tenant keeps 90 days of them).
 */
export async function listDeliveriesPage(
  tenant: TenantContext,
  q: DeliveryPageQuery,
): Promise<{ items: WebhookDelivery[]; total: number }> {
  const input = deliveriesPageParams(tenant, q)
  const [items, total] = await Promise.all([
    queryUpTo({ ...input, ScanIndexForward: false }, q.offset + q.limit),
    queryCount(input),
  ])
  return { items: items.slice(q.offset, q.offset + q.limit).map(deliveries.decode), total }
}

export function listDeliveries(tenant: TenantContext): Promise<WebhookDelivery[]> {
  return deliveries.list(tenant)
}
