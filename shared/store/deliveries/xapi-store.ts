/**
 * The record-store connection and the statement delivery log. The log is a delivery log
 * (shared/store/deliveries/delivery-log.ts), as webhook deliveries are: attempts are claimed with a condition
 * on the attempt count, so a message SQS hands out twice never makes two attempts or counts one
 * twice.
 */
import * as v from 'valibot'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import { identityModes, type LrsConnection } from '../../domain/xapi/connection.ts'
import type { StatementDelivery } from '../../domain/xapi/delivery.ts'
import { deleteItem, getItem, putItem } from '../core/db.ts'
import { withDefault } from '../core/decode.ts'
import { defineEntity, field } from '../core/entity.ts'
import { attemptFields, deliveryLog } from './delivery-log.ts'
import { cond, conditionExpression } from '../core/expression.ts'
import { keys } from '../core/keys.ts'
import { writeOrRefuse } from '../core/transaction.ts'

/** One connection a tenant, keyed by the tenant alone. */
const connectionEntity = defineEntity(
  'lrs_connection',
  {
    id: field('id', v.string()),
    endpoint: field('endpoint', v.string()),
    key: field('key', v.string()),
    sealedSecret: field('sealed_secret', v.string()),
    identityMode: field('identity_mode', v.picklist(identityModes)),
    connectedAt: field('connected_at', v.string()),
    updatedAt: field('updated_at', v.string()),
  },
  { key: (tenant: TenantContext) => keys.lrsConnection(tenant) },
)

export const connectionParams = {
  // Strongly consistent: a disconnect must stop the very next attempt.
  get: (tenant: TenantContext) => ({ Key: keys.lrsConnection(tenant), ConsistentRead: true }),

  /** `next` over `before` (the connection read, or none); refused as `stale` when it changed meanwhile. */
  save: (tenant: TenantContext, next: LrsConnection, before: LrsConnection | undefined) => ({
    Item: connectionEntity.item(tenant, next),
    ...conditionExpression(before ? cond.eq('updated_at', before.updatedAt) : cond.notExists()),
  }),

  delete: (tenant: TenantContext) => ({ Key: keys.lrsConnection(tenant), ReturnValues: 'ALL_OLD' as const }),
}

export async function getConnection(tenant: TenantContext): Promise<LrsConnection | undefined> {
  const { Key, ConsistentRead } = connectionParams.get(tenant)
  const item = await getItem(Key, { ConsistentRead })
  return item ? connectionEntity.decode(item) : undefined
}

/**
 * Saves the connection decided from `before` (what was read, or none).
 * @throws WriteRefused `stale` when another connect or a disconnect came first
 */
export function saveConnection(
  tenant: TenantContext,
  next: LrsConnection,
  before: LrsConnection | undefined,
): Promise<void> {
  return writeOrRefuse(putItem(connectionParams.save(tenant, next, before)), 'stale')
}

/** Deletes the connection and its sealed credentials. @returns false when none was saved. */
export async function deleteConnection(tenant: TenantContext): Promise<boolean> {
  return (await deleteItem(connectionParams.delete(tenant))) !== undefined
}

/** What the store and actor form were is stored flat, next to the attempt fields. */
const statementEntity = defineEntity(
  'xapi_statement',
  {
    ...attemptFields,
    eventId: field('event_id', v.string()),
    connectionId: field('connection_id', v.string()),
    // Rows from before statements named what they were made for match no connection.
    madeForEndpoint: field('made_for_endpoint', withDefault(v.string(), '')),
    madeForIdentityMode: field('made_for_identity_mode', withDefault(v.string(), '')),
    verb: field('verb', v.string()),
    objectId: field('object_id', v.string()),
    userId: field('user_id', v.string()),
    enrollmentId: field('enrollment_id', v.string()),
    body: field('body', v.string()),
    manualRetries: field('manual_retries', withDefault(v.number(), 0)),
  },
  { key: (tenant: TenantContext, s) => keys.xapiStatement(tenant, s.id) },
)

export const statements = deliveryLog({
  entity: {
    type: statementEntity.type,
    decode: (item): StatementDelivery => {
      const {
        madeForEndpoint: endpoint,
        madeForIdentityMode: identityMode,
        ...s
      } = statementEntity.decode(item)
      return { ...s, madeFor: { endpoint, identityMode } }
    },
    item: (tenant, { madeFor, ...s }: StatementDelivery) =>
      statementEntity.item(tenant, {
        ...s,
        madeForEndpoint: madeFor.endpoint,
        madeForIdentityMode: madeFor.identityMode,
      }),
  },
  key: keys.xapiStatement,
  prefix: keys.xapiStatementPrefix,
})

/** @returns false when the row exists already (a relayed event seen again). */
export const insertStatement = statements.insert
export const getStatement = statements.get
export const deleteStatement = statements.delete
/** The claim read as it is written: the row as claimed, or as it stands when refused. */
export const claimAttemptRow = statements.claimRow
/** Records the outcome of the attempt this worker claimed; the row may stay pending. */
export const recordAttempt = statements.record

export function listStatements(tenant: TenantContext): Promise<StatementDelivery[]> {
  return statements.list(tenant)
}

/**
 * Deletes every delivery-log row of one learner (erasure). The filter runs on the log's own key
 * range: erasure is a rare operator action, so it does not earn an index of its own.
 * @returns how many rows were deleted
 */
export function deleteStatementsOf(tenant: TenantContext, userId: string): Promise<number> {
  return statements.deleteWhere(tenant, cond.eq('user_id', userId))
}

/** The rows a retry-all looks at: failed, and made for this store and actor form. */
export const failedFor = (madeFor: StatementDelivery['madeFor']) =>
  cond.and(
    cond.eq('status', 'failed'),
    cond.eq('made_for_endpoint', madeFor.endpoint),
    cond.eq('made_for_identity_mode', madeFor.identityMode),
  )

/** Failed rows, up to `limit` (the filter runs on the log's own key range, never a scan). */
export function listFailedStatements(
  tenant: TenantContext,
  madeFor: StatementDelivery['madeFor'],
  limit: number,
): Promise<StatementDelivery[]> {
  return statements.list(tenant, failedFor(madeFor), limit)
}

/**
 * A failed row back to pending with a fresh attempt count, for the current connection.
 * @returns false when the row is not failed (already re-queued by a concurrent retry).
 */
export function requeueFailed(
  tenant: TenantContext,
  id: string,
  connectionId: string,
  at: string,
): Promise<boolean> {
  return statements.requeue(
    tenant,
    id,
    { set: { connection_id: connectionId }, add: { manual_retries: 1 } },
    at,
  )
}
