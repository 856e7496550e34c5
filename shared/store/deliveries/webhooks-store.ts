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
import {
  batchGet,
  conditionally,
  getItem,
  putItem,
  queryAll,
  queryCount,
  queryUpTo,
  updateItem,
  updateOrCurrent,
} from '../core/db.ts'
import { nullable, withDefault } from '../core/decode.ts'
import { defineEntity, field, optionalField } from '../core/entity.ts'
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
    description: optionalField('description', v.string()),
    // Endpoints written before they could be paused are active.
    isActive: field('is_active', withDefault(v.boolean(), true)),
    sealedSecret: field('sealed_secret', v.string()),
    previousSealedSecret: optionalField('previous_sealed_secret', v.string()),
    previousSecretExpiresAt: optionalField('previous_secret_expires_at', v.string()),
    secretRotatedAt: optionalField('secret_rotated_at', v.string()),
    createdAt: field('created_at', v.string()),
    updatedAt: optionalField('updated_at', v.string()),
    // Stored as null while live: the delete's condition compares it with null.
    deletedAt: field('deleted_at', nullable(v.string())),
  },
  { key: (tenant: TenantContext, e) => keys.webhookEndpoint(tenant, e.id) },
)

export const decodeEndpoint = (item: Record<string, unknown>): WebhookEndpoint => endpointEntity.decode(item)

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

  /** Deleting stops delivery; the sealed secrets are erased with it. Refused if already deleted. */
  delete: (tenant: TenantContext, id: string, at: string) => ({
    Key: keys.webhookEndpoint(tenant, id),
    ...updateExpression(
      {
        set: { deleted_at: at, sealed_secret: '' },
        remove: ['previous_sealed_secret', 'previous_secret_expires_at'],
      },
      cond.and(cond.exists(), cond.eq('deleted_at', null)),
    ),
  }),

  /**
   * A settings change (url, events, description, active) or a rotation, from `before` as read to
   * `after`: refused when the endpoint was deleted or changed meanwhile (its `updated_at` moved), so
   * two rotations never both believe their secret is the current one.
   */
  change: (tenant: TenantContext, before: WebhookEndpoint, after: WebhookEndpoint) => {
    const { set, remove } = endpointEntity.changeOf(before, after)
    return {
      Key: keys.webhookEndpoint(tenant, before.id),
      ...updateExpression(
        { set, remove },
        cond.and(
          cond.exists(),
          cond.eq('deleted_at', null),
          before.updatedAt === null ? cond.notExists('updated_at') : cond.eq('updated_at', before.updatedAt),
        ),
      ),
    }
  },
}

export async function insertEndpoint(tenant: TenantContext, e: WebhookEndpoint): Promise<void> {
  await putItem(endpointParams.insert(tenant, e))
}

/**
 * Which of these deliveries have a row, read key-only (BatchGet, 100 a call): a replay copies the
 * bytes of an event's original delivery from its row when there is one (decision 0048).
 */
export async function deliveriesWithRows(
  tenant: TenantContext,
  ids: readonly string[],
): Promise<Set<string>> {
  const items = await batchGet(
    ids.map((id) => keys.webhookDelivery(tenant, id)),
    '#sk',
    { '#sk': 'sk' },
  )
  return new Set(items.map((i) => String(i.sk).slice(keys.webhookDeliveryPrefix.length)))
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

/**
 * Writes `after` over `before`.
 * @returns the endpoint as written, or as it stands when refused (undefined when it is gone).
 */
export async function changeEndpoint(
  tenant: TenantContext,
  before: WebhookEndpoint,
  after: WebhookEndpoint,
): Promise<{ changed: WebhookEndpoint } | { refused: WebhookEndpoint | undefined }> {
  const out = await updateOrCurrent(endpointParams.change(tenant, before, after))
  if ('updated' in out) return { changed: decodeEndpoint(out.updated) }
  return { refused: out.refused && decodeEndpoint(out.refused) }
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

/**
 * A pending delivery of a deleted endpoint failed at once (`endpoint_inactive`), unless an attempt
 * of it is under way: its worker records that attempt, and the next one finds the endpoint gone.
 */
export const stopPendingParams = (tenant: TenantContext, d: WebhookDelivery, at: string) => ({
  Key: keys.webhookDelivery(tenant, d.id),
  ...updateExpression(
    { set: { status: 'failed', reason: 'endpoint_inactive', updated_at: at } },
    cond.and(
      cond.eq('status', 'pending'),
      cond.eq('attempts', d.attempts),
      cond.or(cond.notExists('attempt_state'), cond.ne('attempt_state', 'claimed')),
    ),
  ),
})

/** @returns how many pending deliveries of the endpoint were failed as `endpoint_inactive`. */
export async function stopPendingDeliveries(tenant: TenantContext, endpointId: string, at: string) {
  const pending = await deliveries.list(
    tenant,
    cond.and(cond.eq('endpoint_id', endpointId), cond.eq('status', 'pending')),
  )
  const stopped = await Promise.all(
    pending.map((d) => conditionally(updateItem(stopPendingParams(tenant, d, at)))),
  )
  return stopped.filter(Boolean).length
}

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
