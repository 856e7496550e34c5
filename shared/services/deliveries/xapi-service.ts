/**
 * Statement export: the relay's fan-out (an outbox event → one delivery-log row and a queue
 * message, only while a record store is connected), the worker's attempts, the log, and retries.
 */
import * as v from 'valibot'
import { config } from '../../config.ts'
import { open } from '../../crypto/secret-box.ts'
import { NotFoundError, RuleViolationError } from '../../domain/errors.ts'
import { newestFirst, statusAfterFailure } from '../../domain/attempts.ts'
import type { Tenant, TenantContext } from '../../domain/tenants/tenant.ts'
import { basicAuth, statementsUrl, type LrsConnection } from '../../domain/xapi/connection.ts'
import {
  classify,
  MAX_ATTEMPTS,
  retryDelay,
  RETRY_ALL_LIMIT,
  type StatementDelivery,
  type StatementStatus,
} from '../../domain/xapi/delivery.ts'
import {
  actorFor,
  buildStatement,
  portalBase,
  statementIdOf,
  statementSourceOf,
  XAPI_VERSION,
} from '../../domain/xapi/statement.ts'
import { mapLimit } from '../../concurrency.ts'
import { sendOutbound } from '../../net/outbound-http.ts'
import { sendMessage } from '../../queue/sqs.ts'
import { writeAudit } from '../../store/tenants/audit-store.ts'
import type { PendingEvent } from '../../store/outbox/outbox-store.ts'
import { getUser } from '../../store/users/users-store.ts'
import {
  deleteStatement,
  claimAttemptRow,
  getConnection,
  getStatement,
  insertStatement,
  listFailedStatements,
  listStatements,
  recordAttempt,
  requeueFailed,
} from '../../store/deliveries/xapi-store.ts'
import { tenantById } from '../tenants/tenant-cache.ts'
import { ROW_GONE, runQueuedAttempt } from './claimed-attempt.ts'
import { lrsGuard, recordStoreSecretOf, requireConnection } from './lrs-connection-service.ts'

const nowIso = () => new Date().toISOString()

/** The statements queue's message: attempt `attempt` of one statement. */
export const XapiMessage = v.object({
  tenantId: v.pipe(v.string(), v.nonEmpty()),
  statementId: v.pipe(v.string(), v.nonEmpty()),
  attempt: v.pipe(v.number(), v.integer(), v.minValue(1)),
})
export type XapiMessage = v.InferOutput<typeof XapiMessage>

function enqueue(tenantId: string, statementId: string, attempt: number, delaySeconds = 0) {
  return sendMessage(
    config.xapiQueueUrl,
    { tenantId, statementId, attempt } satisfies XapiMessage,
    delaySeconds,
  )
}

/**
 * The relay's fan-out: a statement for an event that makes one, when a record store is connected
 * and was connected before the change was saved (no back-fill). The body is serialised here,
 * once; the row is written with `attribute_not_exists` and the message sent even when it existed
 * (a relay that died between the two must not lose it). @returns 1 when a statement was made.
 */
export async function fanOutStatements(
  tenant: Tenant,
  pending: Pick<PendingEvent, 'event' | 'recordedAt'>,
  at = nowIso(),
): Promise<number> {
  const source = statementSourceOf(pending.event)
  if (!source) return 0
  const connection = await getConnection(tenant)
  if (!connection || pending.recordedAt < connection.connectedAt) return 0
  const portal = portalBase(tenant.slug, config.serviceHost)
  // An erased learner's activity is never exported again, whatever was in flight at erasure.
  const learner = await getUser(tenant, source.userId, { consistent: true })
  if (learner?.erasedAt !== undefined) return 0
  const email = connection.identityMode === 'email' ? learner?.email : undefined
  const id = statementIdOf(source, pending.event.id)
  const built = buildStatement({
    source,
    statementId: id,
    timestamp: pending.event.createdAt,
    portal,
    actor: actorFor(connection.identityMode, portal, source.userId, email),
  })
  const inserted = await insertStatement(tenant, {
    id,
    eventId: pending.event.id,
    connectionId: connection.id,
    madeFor: { endpoint: connection.endpoint, identityMode: connection.identityMode },
    verb: built.verb,
    objectId: built.objectId,
    userId: source.userId,
    enrollmentId: source.enrollmentId,
    status: 'pending',
    attempts: 0,
    httpStatus: null,
    reason: null,
    body: built.body,
    manualRetries: 0,
    createdAt: at,
    updatedAt: at,
    attemptRecorded: true,
  })
  if (!inserted) {
    // Seen before: re-send only while the first attempt is still unclaimed.
    const existing = await getStatement(tenant, id)
    if (!existing || existing.status !== 'pending' || existing.attempts !== 0) return 1
  }
  await enqueue(tenant.id, id, 1)
  return 1
}

/** What one attempt came to, recorded on the log row. */
type AttemptOutcome = Pick<StatementDelivery, 'status' | 'httpStatus' | 'reason'>

/** A queued attempt of a statement whose tenant may be gone meanwhile (nothing to do then). */
export async function attemptQueuedStatement(msg: XapiMessage): Promise<StatementStatus | undefined> {
  const tenant = await tenantById(msg.tenantId)
  return tenant ? attemptStatement(tenant, msg) : undefined
}

/**
 * One attempt (shared/services/deliveries/claimed-attempt.ts): a duplicate message does nothing. A statement
 * whose connection is gone (disconnected, or replaced by a new connection) fails at once with
 * reason `disconnected`. A retryable failure with attempts left, an exception while making the
 * attempt included, queues the next.
 */
export async function attemptStatement(
  tenant: TenantContext,
  msg: XapiMessage,
  at = nowIso(),
): Promise<StatementStatus | undefined> {
  return runQueuedAttempt({
    attempt: msg.attempt,
    maxAttempts: MAX_ATTEMPTS,
    claim: () => claimAttemptRow(tenant, msg.statementId, msg.attempt, at),
    make: (row) => makeAttempt(tenant, row, msg.attempt),
    fault: (failure): AttemptOutcome => ({ ...failure, httpStatus: null }),
    record: (row, outcome) => recordAttempt(tenant, row.id, msg.attempt, outcome, nowIso()),
    queueNext: () => queueNextAttempt(tenant, msg),
    log: (row) => ({ msg: 'statement attempt threw', tenantId: tenant.id, statementId: row.id }),
  })
}

/**
 * Makes claimed attempt number `attempt` of `row`; the caller records what it came to.
 * @returns ROW_GONE when the row was deleted instead (nothing left to record).
 */
async function makeAttempt(
  tenant: TenantContext,
  row: StatementDelivery,
  attempt: number,
): Promise<AttemptOutcome | typeof ROW_GONE> {
  // A row written while its learner was being erased: erasure wins, and the row goes with it.
  const learner = await getUser(tenant, row.userId, { consistent: true })
  if (learner?.erasedAt !== undefined) {
    await deleteStatement(tenant, row.id)
    return ROW_GONE
  }
  const connection = await getConnection(tenant)
  if (!connection || connection.id !== row.connectionId) {
    return { status: 'failed', httpStatus: null, reason: 'disconnected' }
  }
  const result = await sendOutbound({
    url: statementsUrl(connection.endpoint, `statementId=${encodeURIComponent(row.id)}`),
    method: 'PUT',
    headers: {
      'content-type': 'application/json',
      'x-experience-api-version': XAPI_VERSION,
      authorization: basicAuth(
        connection.key,
        await open(connection.sealedSecret, recordStoreSecretOf(tenant, connection.id)),
      ),
    },
    body: Buffer.from(row.body, 'utf8'),
    timeoutMs: config.xapiTimeoutMs,
    guard: lrsGuard(),
  })
  const outcome = classify(result)
  const status: StatementStatus =
    outcome.kind === 'delivered'
      ? 'delivered'
      : outcome.kind === 'stop'
        ? 'failed'
        : statusAfterFailure(attempt, MAX_ATTEMPTS)
  return {
    status,
    httpStatus: result.kind === 'response' ? result.status : null,
    reason: outcome.kind === 'delivered' ? null : outcome.reason,
  }
}

async function queueNextAttempt(tenant: TenantContext, msg: XapiMessage): Promise<void> {
  const delay = retryDelay(msg.attempt, config.xapiRetryDelays)
  if (delay !== undefined) await enqueue(tenant.id, msg.statementId, msg.attempt + 1, delay)
}

export async function listLog(tenant: TenantContext, status?: StatementStatus): Promise<StatementDelivery[]> {
  return (await listStatements(tenant)).filter((s) => !status || s.status === status).sort(newestFirst)
}

/**
 * Re-queues failed statements (the same row, statement id and bytes; a record store treats the
 * same id as the same statement) for the current connection, when it is the store and actor form
 * the statement was made for. Refused when none is connected.
 */
const REQUEUE_CONCURRENCY = 16

async function currentConnection(tenant: TenantContext): Promise<LrsConnection> {
  return requireConnection(tenant).catch((err: unknown) => {
    if (err instanceof NotFoundError) {
      throw new RuleViolationError('lrs.not_connected', 'No record store is connected')
    }
    throw err
  })
}

const madeForOf = (c: LrsConnection) => ({ endpoint: c.endpoint, identityMode: c.identityMode })

async function requeue(
  tenant: TenantContext,
  connection: LrsConnection,
  rows: readonly StatementDelivery[],
  actor: string,
  at: string,
): Promise<string[]> {
  // Each row is its own conditional write (a concurrent retry queues it once); 16 in flight
  // keeps a 500-row call to a few seconds without bursting the table.
  const outcomes = await mapLimit(rows, REQUEUE_CONCURRENCY, async (row) => {
    if (!(await requeueFailed(tenant, row.id, connection.id, at))) return undefined
    await enqueue(tenant.id, row.id, 1)
    return row.id
  })
  const requeued = outcomes.filter((id): id is string => id !== undefined)
  await writeAudit(tenant, { action: 'lrs.retry', actor, details: { count: requeued.length }, createdAt: at })
  return requeued
}

export async function retryStatement(
  tenant: TenantContext,
  id: string,
  actor: string,
  at = nowIso(),
): Promise<string[]> {
  const row = await getStatement(tenant, id)
  if (!row) throw new NotFoundError('xapi_statement')
  if (row.status !== 'failed') {
    throw new RuleViolationError(
      'xapi_statement.not_failed',
      `The statement is ${row.status}; only failed ones are retried`,
    )
  }
  const connection = await currentConnection(tenant)
  const now = madeForOf(connection)
  if (row.madeFor.endpoint !== now.endpoint || row.madeFor.identityMode !== now.identityMode) {
    throw new RuleViolationError(
      'xapi_statement.other_store',
      'The statement was made for another record store or identity mode; it is not sent to this one',
    )
  }
  return requeue(tenant, connection, [row], actor, at)
}

/**
 * Every failed statement made for the connected store and identity mode, up to 500 a call (run
 * again for the rest); statements made for another store or actor form stay as they are.
 */
export async function retryAllFailed(tenant: TenantContext, actor: string, at = nowIso()): Promise<string[]> {
  const connection = await currentConnection(tenant)
  const rows = await listFailedStatements(tenant, madeForOf(connection), RETRY_ALL_LIMIT)
  return requeue(tenant, connection, rows, actor, at)
}
