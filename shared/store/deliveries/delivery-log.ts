/**
 * The delivery log that webhook deliveries and record-store statements share: one row per thing to
 * send, made in attempts through a queue. An attempt is claimed with a condition on the count it
 * starts from and only the claimer records its outcome, so a message SQS hands out twice never
 * makes two attempts or counts one twice; a claim whose worker died is taken over once its lease
 * has run out (shared/domain/attempts.ts). A log kind adds its own attributes to these columns.
 */
import * as v from 'valibot'
import { CLAIM_LEASE_MS } from '../../domain/attempts.ts'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import {
  batchDelete,
  conditionally,
  deleteItem,
  getItem,
  isConditionalCheckFailed,
  putItem,
  queryUpTo,
  updateItem,
  updateOrCurrent,
  type Item,
} from '../core/db.ts'
import { decodeItem, nullable, withDefault } from '../core/decode.ts'
import { field, type Field, type ValueOf } from '../core/entity.ts'
import {
  cond,
  conditionExpression,
  queryExpression,
  updateExpression,
  type Condition,
} from '../core/expression.ts'
import { keys, TTL_ATTRIBUTE, type Key } from '../core/keys.ts'

/** Rows stay viewable for 90 days, the spec's delivery-log retention. */
export const LOG_RETENTION_SECONDS = 90 * 86_400

const CLAIMED = 'claimed'
const RECORDED = 'recorded'

/**
 * The outcome of attempt `attempts` is recorded (see shared/domain/attempts.ts). Rows from before
 * claims had states have none: they count as recorded, as a new row does.
 */
const attemptRecorded: Field<boolean> = {
  attribute: 'attempt_state',
  schema: v.optional(
    v.pipe(
      v.picklist([CLAIMED, RECORDED]),
      v.transform((state) => state !== CLAIMED),
    ),
    RECORDED,
  ),
  write: (recorded) => (recorded ? undefined : CLAIMED),
}

/**
 * The attempt fields every log kind's declaration starts from. The HTTP status and reason stay
 * stored as null while there are none: outcomes and re-queues set them so.
 */
export const attemptFields = {
  id: field('id', v.string()),
  status: field('status', v.picklist(['pending', 'delivered', 'failed'])),
  attempts: field('attempts', withDefault(v.number(), 0)),
  httpStatus: field('http_status', nullable(v.number())),
  reason: field('reason', nullable(v.string())),
  createdAt: field('created_at', v.string()),
  updatedAt: field('updated_at', v.string()),
  attemptRecorded,
}

/** What every row of a delivery log says about its attempts. */
export type LoggedAttempts = ValueOf<typeof attemptFields>

/** What an attempt came to, as every log records it. */
export type LoggedOutcome = Pick<LoggedAttempts, 'status' | 'httpStatus' | 'reason'>

/** One kind of row: its declaration (attemptFields and its own), where it lives, what an outcome adds. */
export interface LogKind<Row extends LoggedAttempts, O extends LoggedOutcome> {
  /** A declaration of the row, or one adapted to a domain type that nests some of its fields. */
  readonly entity: {
    readonly type: string
    decode(item: Item): Row
    item(tenant: TenantContext, row: Row): Item
  }
  readonly key: (tenant: TenantContext, id: string) => Key
  /** The sort-key prefix of every row of the tenant. */
  readonly prefix: string
  /** The kind's own attributes an outcome sets besides status, HTTP status and reason. */
  readonly ownOutcome?: (outcome: O) => Item
}

/** A claim of an attempt: the row as claimed, or as it stands when the claim was refused. */
export type Claim<Row> = { readonly claimed: Row } | { readonly refused: Row | undefined }

/** What a re-queue changes besides the attempt columns (the kind's own attributes). */
export interface Requeue {
  readonly set?: Readonly<Record<string, unknown>>
  readonly add?: Readonly<Record<string, number>>
}

/**
 * Attempt `attempt` may be taken: nobody has, or its claimer's lease ran out before an outcome was
 * recorded; never for a duplicate, a live claim or a finished row.
 */
function claimable(attempt: number, at: string): Condition {
  return cond.and(
    cond.eq('status', 'pending'),
    cond.or(
      cond.eq('attempts', attempt - 1),
      cond.and(
        cond.eq('attempts', attempt),
        cond.eq('attempt_state', CLAIMED),
        cond.lt('claimed_at', new Date(Date.parse(at) - CLAIM_LEASE_MS).toISOString()),
      ),
    ),
  )
}

/**
 * The operations of one log kind: pure parameter builders (`params`, command inputs without the
 * table name) and the thin sends over them.
 */
export function deliveryLog<Row extends LoggedAttempts, O extends LoggedOutcome>(kind: LogKind<Row, O>) {
  /** The whole item of a row, its expiry included. */
  const rowItem = (tenant: TenantContext, row: Row): Item => ({
    ...kind.entity.item(tenant, row),
    [TTL_ATTRIBUTE]: Math.floor(Date.parse(row.createdAt) / 1000) + LOG_RETENTION_SECONDS,
  })
  const params = {
    /** A new row, written only if absent (a relayed event may be fanned out twice). */
    insert: (tenant: TenantContext, row: Row) => {
      return { Item: rowItem(tenant, row), ...conditionExpression(cond.notExists()) }
    },

    /** Strongly consistent: a worker must see the attempt its predecessor recorded. */
    get: (tenant: TenantContext, id: string) => ({ Key: kind.key(tenant, id), ConsistentRead: true }),

    /** The tenant's rows (`filter` on the log's own key range, never a scan). */
    list: (tenant: TenantContext, filter?: Condition, project?: readonly string[]) =>
      queryExpression({
        key: cond.and(cond.eq('pk', keys.tenantPartition(tenant)), cond.beginsWith('sk', kind.prefix)),
        ...(filter ? { filter } : {}),
        ...(project ? { project } : {}),
      }),

    /**
     * Takes attempt `attempt` if nobody has, or if its claimer's lease ran out before an outcome
     * was recorded; refused for a duplicate, a live claim or a finished row.
     */
    claim: (tenant: TenantContext, id: string, attempt: number, at: string) => ({
      Key: kind.key(tenant, id),
      ...updateExpression(
        { set: { attempts: attempt, attempt_state: CLAIMED, claimed_at: at, updated_at: at } },
        claimable(attempt, at),
      ),
    }),

    /**
     * Attempt 1 of a row its message names instead of anyone writing it first (decisions 0015,
     * 0028): the row written already claimed when it is new, or claimed as `claim` would claim it.
     * Every value it sets follows from the message (carried, or read from the item it names), so a
     * copy of the message that takes over a claim writes the same.
     */
    claimNew: (tenant: TenantContext, row: Row, at: string) => {
      const item = withoutKey(rowItem(tenant, row))
      return {
        Key: kind.key(tenant, row.id),
        ...updateExpression(
          { set: { ...item, attempts: 1, attempt_state: CLAIMED, claimed_at: at, updated_at: at } },
          cond.or(cond.notExists(), claimable(1, at)),
        ),
      }
    },

    /** The claimed attempt's outcome; refused when the attempt is no longer this claimer's. */
    record: (tenant: TenantContext, id: string, attempt: number, outcome: O, at: string) => ({
      Key: kind.key(tenant, id),
      ...updateExpression(
        {
          set: {
            status: outcome.status,
            http_status: outcome.httpStatus,
            reason: outcome.reason,
            ...kind.ownOutcome?.(outcome),
            attempt_state: RECORDED,
            updated_at: at,
          },
        },
        cond.and(cond.eq('status', 'pending'), cond.eq('attempts', attempt)),
      ),
    }),

    /** A failed row back to pending with a fresh attempt count; refused unless it is failed. */
    requeue: (tenant: TenantContext, id: string, change: Requeue, at: string) => ({
      Key: kind.key(tenant, id),
      ...updateExpression(
        {
          set: {
            status: 'pending',
            attempts: 0,
            http_status: null,
            reason: null,
            ...change.set,
            updated_at: at,
          },
          ...(change.add ? { add: change.add } : {}),
        },
        cond.eq('status', 'failed'),
      ),
    }),

    delete: (tenant: TenantContext, id: string) => ({ Key: kind.key(tenant, id) }),
  }

  const decode = (item: Item): Row => kind.entity.decode(item)

  return {
    params,
    decode,

    /** @returns false when the row exists already (a relayed event seen again). */
    insert: (tenant: TenantContext, row: Row): Promise<boolean> =>
      conditionally(putItem(params.insert(tenant, row))),

    get: async (tenant: TenantContext, id: string): Promise<Row | undefined> => {
      const p = params.get(tenant, id)
      const item = await getItem(p.Key, { ConsistentRead: p.ConsistentRead })
      return item ? decode(item) : undefined
    },

    /** Up to `limit` of the tenant's rows that pass `filter`, in key order. */
    list: async (tenant: TenantContext, filter?: Condition, limit = Number.POSITIVE_INFINITY) =>
      (await queryUpTo(params.list(tenant, filter), limit)).map(decode),

    /**
     * The claim and the read of the row in one round trip: the row as claimed, or, refused, the
     * row as it stands (undefined when it is gone), which says why (shared/domain/attempts.ts).
     */
    claimRow: async (tenant: TenantContext, id: string, attempt: number, at: string): Promise<Claim<Row>> => {
      const out = await updateOrCurrent(params.claim(tenant, id, attempt, at))
      if ('updated' in out) return { claimed: decode(out.updated) }
      return { refused: out.refused && decode(out.refused) }
    },

    /** claimRow for attempt 1 of a row its message names: written by its claim when new. */
    claimNewRow: async (tenant: TenantContext, row: Row, at: string): Promise<Claim<Row>> => {
      const out = await updateOrCurrent(params.claimNew(tenant, row, at))
      if ('updated' in out) return { claimed: decode(out.updated) }
      return { refused: out.refused && decode(out.refused) }
    },

    /** Records the outcome of the attempt this worker claimed; the row may stay pending. */
    record: async (tenant: TenantContext, id: string, attempt: number, outcome: O, at: string) => {
      try {
        await updateItem(params.record(tenant, id, attempt, outcome, at))
      } catch (err) {
        // A later claimer took the attempt over: its outcome is the one that counts.
        if (!isConditionalCheckFailed(err)) throw err
      }
    },

    /** @returns false when the row is not failed (already re-queued by a concurrent retry). */
    requeue: (tenant: TenantContext, id: string, change: Requeue, at: string): Promise<boolean> =>
      conditionally(updateItem(params.requeue(tenant, id, change, at))),

    delete: async (tenant: TenantContext, id: string): Promise<void> => {
      await deleteItem(params.delete(tenant, id))
    },

    /** Deletes every row that passes `filter` (reading keys only). @returns how many. */
    deleteWhere: async (tenant: TenantContext, filter: Condition): Promise<number> => {
      const items = await queryUpTo(params.list(tenant, filter, ['pk', 'sk']), Number.POSITIVE_INFINITY)
      const rowKeys = items.map((item) => decodeItem(kind.entity.type, StoredKey, item))
      await batchDelete(rowKeys)
      return rowKeys.length
    },
  }
}

const StoredKey = v.object({ pk: v.string(), sk: v.string() })

/** An item's attributes without its key, which an update may not set. */
const withoutKey = ({ pk: _pk, sk: _sk, ...attributes }: Item): Item => attributes
