/**
 * The record-store connection and the statement delivery log. Attempts are claimed with a
 * condition on the attempt count (as webhook deliveries are), so a message SQS hands out twice
 * never makes two attempts or counts one twice.
 */
import type { TenantContext } from '../domain/tenants/tenant.ts'
import type { IdentityMode, LrsConnection } from '../domain/xapi/connection.ts'
import type { StatementDelivery, StatementStatus } from '../domain/xapi/delivery.ts'
import {
  batchDelete,
  deleteItem,
  getItem,
  conditionally,
  putItem,
  queryAll,
  queryUpTo,
  updateItem,
  type Item,
} from './db.ts'
import { attemptRecordedOn, claimAttemptOn, recordOutcomeOn } from './attempts.ts'
import { keys, TTL_ATTRIBUTE } from './keys.ts'

/** Delivery-log rows live 90 days (the spec's retention). */
const LOG_RETENTION_SECONDS = 90 * 86_400

function toConnection(item: Item): LrsConnection {
  return {
    id: item.id as string,
    endpoint: item.endpoint as string,
    key: item.key as string,
    sealedSecret: item.sealed_secret as string,
    identityMode: item.identity_mode as IdentityMode,
    connectedAt: item.connected_at as string,
    updatedAt: item.updated_at as string,
  }
}

export async function getConnection(tenant: TenantContext): Promise<LrsConnection | undefined> {
  // Strongly consistent: a disconnect must stop the very next attempt.
  const item = await getItem(keys.lrsConnection(tenant), { ConsistentRead: true })
  return item ? toConnection(item) : undefined
}

export async function putConnection(tenant: TenantContext, c: LrsConnection): Promise<void> {
  await putItem({
    Item: {
      ...keys.lrsConnection(tenant),
      type: 'lrs_connection',
      id: c.id,
      endpoint: c.endpoint,
      key: c.key,
      sealed_secret: c.sealedSecret,
      identity_mode: c.identityMode,
      connected_at: c.connectedAt,
      updated_at: c.updatedAt,
    },
  })
}

/** Deletes the connection and its sealed credentials. @returns false when none was saved. */
export async function deleteConnection(tenant: TenantContext): Promise<boolean> {
  const old = await deleteItem({ Key: keys.lrsConnection(tenant), ReturnValues: 'ALL_OLD' })
  return old !== undefined
}

function toStatement(item: Item): StatementDelivery {
  return {
    id: item.id as string,
    eventId: item.event_id as string,
    connectionId: item.connection_id as string,
    madeFor: {
      endpoint: (item.made_for_endpoint as string | undefined) ?? '',
      identityMode: (item.made_for_identity_mode as string | undefined) ?? '',
    },
    verb: item.verb as string,
    objectId: item.object_id as string,
    userId: item.user_id as string,
    enrollmentId: item.enrollment_id as string,
    status: item.status as StatementStatus,
    attempts: (item.attempts as number | undefined) ?? 0,
    httpStatus: (item.http_status as number | null | undefined) ?? null,
    reason: (item.reason as string | null | undefined) ?? null,
    body: item.body as string,
    manualRetries: (item.manual_retries as number | undefined) ?? 0,
    createdAt: item.created_at as string,
    updatedAt: item.updated_at as string,
    attemptRecorded: attemptRecordedOn(item),
  }
}

/** @returns false when the row exists already (a relayed event seen again). */
export async function insertStatement(tenant: TenantContext, s: StatementDelivery): Promise<boolean> {
  return conditionally(
    putItem({
      Item: {
        ...keys.xapiStatement(tenant, s.id),
        type: 'xapi_statement',
        id: s.id,
        event_id: s.eventId,
        connection_id: s.connectionId,
        made_for_endpoint: s.madeFor.endpoint,
        made_for_identity_mode: s.madeFor.identityMode,
        verb: s.verb,
        object_id: s.objectId,
        user_id: s.userId,
        enrollment_id: s.enrollmentId,
        status: s.status,
        attempts: s.attempts,
        http_status: s.httpStatus,
        reason: s.reason,
        body: s.body,
        manual_retries: s.manualRetries,
        created_at: s.createdAt,
        updated_at: s.updatedAt,
        [TTL_ATTRIBUTE]: Math.floor(Date.parse(s.createdAt) / 1000) + LOG_RETENTION_SECONDS,
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  )
}

export async function getStatement(
  tenant: TenantContext,
  id: string,
): Promise<StatementDelivery | undefined> {
  const item = await getItem(keys.xapiStatement(tenant, id), { ConsistentRead: true })
  return item ? toStatement(item) : undefined
}

export async function listStatements(tenant: TenantContext): Promise<StatementDelivery[]> {
  const items = await queryAll({
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :sk)',
    ExpressionAttributeValues: { ':pk': keys.tenantPartition(tenant), ':sk': keys.xapiStatementPrefix },
  })
  return items.map(toStatement)
}

/**
 * Deletes every delivery-log row of one learner (erasure). The filter runs on the log's own key
 * range: erasure is a rare operator action, so it does not earn an index of its own.
 * @returns how many rows were deleted
 */
export async function deleteStatement(tenant: TenantContext, id: string): Promise<void> {
  await deleteItem({ Key: keys.xapiStatement(tenant, id) })
}

export async function deleteStatementsOf(tenant: TenantContext, userId: string): Promise<number> {
  const items = await queryAll({
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :sk)',
    FilterExpression: 'user_id = :user',
    ProjectionExpression: 'pk, sk',
    ExpressionAttributeValues: {
      ':pk': keys.tenantPartition(tenant),
      ':sk': keys.xapiStatementPrefix,
      ':user': userId,
    },
  })
  await batchDelete(items.map((item) => ({ pk: item.pk as string, sk: item.sk as string })))
  return items.length
}

/** Failed rows, up to `limit` (the filter runs on the log's own key range, never a scan). */
export async function listFailedStatements(
  tenant: TenantContext,
  madeFor: StatementDelivery['madeFor'],
  limit: number,
): Promise<StatementDelivery[]> {
  const items = await queryUpTo(
    {
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :sk)',
      FilterExpression:
        '#status = :failed AND made_for_endpoint = :endpoint AND made_for_identity_mode = :mode',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':pk': keys.tenantPartition(tenant),
        ':sk': keys.xapiStatementPrefix,
        ':failed': 'failed',
        ':endpoint': madeFor.endpoint,
        ':mode': madeFor.identityMode,
      },
    },
    limit,
  )
  return items.map(toStatement)
}

/** Takes attempt number `attempt` if nobody has: @returns false for a duplicate or finished row. */
export function claimAttempt(
  tenant: TenantContext,
  id: string,
  attempt: number,
  at: string,
): Promise<boolean> {
  return claimAttemptOn(keys.xapiStatement(tenant, id), attempt, at)
}

/** Records the outcome of the attempt this worker claimed; the row may stay pending. */
export function recordAttempt(
  tenant: TenantContext,
  id: string,
  attempt: number,
  outcome: { status: StatementStatus; httpStatus: number | null; reason: string | null },
  at: string,
): Promise<void> {
  return recordOutcomeOn(
    keys.xapiStatement(tenant, id),
    attempt,
    { status: outcome.status, http_status: outcome.httpStatus, reason: outcome.reason },
    at,
  )
}

/**
 * A failed row back to pending with a fresh attempt count, for the current connection.
 * @returns false when the row is not failed (already re-queued by a concurrent retry).
 */
export async function requeueFailed(
  tenant: TenantContext,
  id: string,
  connectionId: string,
  at: string,
): Promise<boolean> {
  return conditionally(
    updateItem({
      Key: keys.xapiStatement(tenant, id),
      UpdateExpression:
        'SET #status = :pending, attempts = :zero, http_status = :null, reason = :null, connection_id = :conn, updated_at = :at ADD manual_retries :one',
      ConditionExpression: '#status = :failed',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':pending': 'pending',
        ':failed': 'failed',
        ':zero': 0,
        ':null': null,
        ':conn': connectionId,
        ':at': at,
        ':one': 1,
      },
    }),
  )
}
