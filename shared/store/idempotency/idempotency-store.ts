/**
 * Idempotency records (decision 0038): one item per tenant and Idempotency-Key in the tenant's
 * partition. The first request claims the key with one conditional Put, while no one holds it or
 * the holder's lease ran out (a request that died mid-way); it then keeps its answer with one
 * Update, or gives the key back when the answer is not kept. A later request reads the record
 * once. The token makes the holder the only one who completes or releases its claim, so a
 * request taken over after its lease cannot overwrite its successor's answer.
 */
import * as v from 'valibot'
import {
  IDEMPOTENCY_LEASE_MS,
  IDEMPOTENCY_RETENTION_SECONDS,
  type IdempotencyRecord,
  type KeptResponse,
} from '../../domain/idempotency.ts'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import { conditionally, deleteItem, getItem, putItem, updateItem } from '../core/db.ts'
import { decodeItem } from '../core/decode.ts'
import { cond, conditionExpression, updateExpression } from '../core/expression.ts'
import { keys, TTL_ATTRIBUTE } from '../core/keys.ts'

const RecordItem = v.object({
  request_hash: v.string(),
  locked_until: v.number(),
  [TTL_ATTRIBUTE]: v.number(),
  response: v.optional(
    v.object({
      status_code: v.number(),
      headers: v.record(v.string(), v.string()),
      body: v.optional(v.string()),
    }),
  ),
})

export const idempotencyParams = {
  /** Taken when the key is free: never used, expired, or held by a request whose lease ran out. */
  claim: (tenant: TenantContext, key: string, requestHash: string, token: string, now: Date) => ({
    Item: {
      ...keys.idempotencyRecord(tenant, key),
      type: 'idempotency',
      request_hash: requestHash,
      token,
      locked_until: now.getTime() + IDEMPOTENCY_LEASE_MS,
      [TTL_ATTRIBUTE]: Math.floor(now.getTime() / 1000) + IDEMPOTENCY_RETENTION_SECONDS,
    },
    ...conditionExpression(
      cond.or(
        cond.notExists(),
        cond.le(TTL_ATTRIBUTE, Math.floor(now.getTime() / 1000)),
        cond.and(cond.notExists('response'), cond.le('locked_until', now.getTime())),
      ),
    ),
  }),
  complete: (tenant: TenantContext, key: string, token: string, response: KeptResponse) => ({
    Key: keys.idempotencyRecord(tenant, key),
    ...updateExpression(
      {
        set: {
          response: {
            status_code: response.statusCode,
            headers: response.headers,
            ...(response.body === undefined ? {} : { body: response.body }),
          },
        },
      },
      cond.eq('token', token),
    ),
  }),
  release: (tenant: TenantContext, key: string, token: string) => ({
    Key: keys.idempotencyRecord(tenant, key),
    ...conditionExpression(cond.and(cond.eq('token', token), cond.notExists('response'))),
  }),
}

/** The key's record as it stands (a strongly consistent read: a replay right after the first sees it). */
export async function readIdempotencyRecord(
  tenant: TenantContext,
  key: string,
): Promise<IdempotencyRecord | undefined> {
  const item = await getItem(keys.idempotencyRecord(tenant, key), { ConsistentRead: true })
  if (!item) return undefined
  const r = decodeItem('idempotency record', RecordItem, item)
  return {
    requestHash: r.request_hash,
    lockedUntilMs: r.locked_until,
    expiresAtSeconds: r[TTL_ATTRIBUTE],
    response: r.response && {
      statusCode: r.response.status_code,
      headers: r.response.headers,
      body: r.response.body,
    },
  }
}

/**
 * @returns false when another request holds the key or kept its answer (read the record again).
 * `now` is the machine's clock; a test backdates it to leave a claim its holder "died" with.
 */
export function claimIdempotencyKey(
  tenant: TenantContext,
  key: string,
  requestHash: string,
  token: string,
  now = new Date(),
): Promise<boolean> {
  return conditionally(putItem(idempotencyParams.claim(tenant, key, requestHash, token, now)))
}

/** Keeps the answer; a claim taken over meanwhile (this request outlived its lease) is left alone. */
export async function completeIdempotencyKey(
  tenant: TenantContext,
  key: string,
  token: string,
  response: KeptResponse,
): Promise<void> {
  await conditionally(updateItem(idempotencyParams.complete(tenant, key, token, response)))
}

/** Gives the key back at once (the answer is not kept), so a retry runs again without waiting. */
export async function releaseIdempotencyKey(
  tenant: TenantContext,
  key: string,
  token: string,
): Promise<void> {
  await conditionally(deleteItem(idempotencyParams.release(tenant, key, token)))
}
