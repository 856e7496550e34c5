/**
 * Counters for the per-key minute window, the per-tenant monthly usage and the per-address windows
 * (keyless routes, failed authentications). Each is one atomic conditional ADD: the request that
 * would pass the limit fails its condition, so no read-then-write race can ever admit it, however
 * many requests arrive at once.
 */
import type { TenantContext } from '../domain/tenants/tenant.ts'
import {
  isConditionalCheckFailed,
  transact,
  TransactionConditionFailed,
  updateItem,
  type TransactItem,
} from './db.ts'
import { keys, TTL_ATTRIBUTE, type Key } from './keys.ts'

/** @returns the count including this request, or undefined when the window is full. */
export function consumeMinuteWindow(
  keyId: string,
  windowStart: number,
  limit: number,
  expiresAtEpoch: number,
): Promise<number | undefined> {
  return consumeWindow(keys.rateWindow(keyId, windowStart), limit, expiresAtEpoch)
}

/** The same fixed window, per client address on a keyless route. */
export function consumeIpWindow(
  route: string,
  ipHash: string,
  windowStart: number,
  limit: number,
  expiresAtEpoch: number,
): Promise<number | undefined> {
  return consumeWindow(keys.ipWindow(route, ipHash, windowStart), limit, expiresAtEpoch)
}

/** Not a route key (those read `METHOD /path`), so the failures window never meets a route's. */
const FAILED_AUTH = 'failed-authentication'

/**
 * One failed authentication from a client address, over every keyed route: counted only after a
 * key lookup failed, so a valid request never pays for it.
 */
export function consumeFailedAuthWindow(
  ipHash: string,
  windowStart: number,
  limit: number,
  expiresAtEpoch: number,
): Promise<number | undefined> {
  return consumeWindow(keys.ipWindow(FAILED_AUTH, ipHash, windowStart), limit, expiresAtEpoch)
}

async function consumeWindow(key: Key, limit: number, expiresAtEpoch: number): Promise<number | undefined> {
  try {
    const out = await updateItem({
      Key: key,
      UpdateExpression: 'ADD #count :one SET #ttl = if_not_exists(#ttl, :ttl)',
      ConditionExpression: 'attribute_not_exists(#count) OR #count < :limit',
      ExpressionAttributeNames: { '#count': 'count', '#ttl': TTL_ATTRIBUTE },
      ExpressionAttributeValues: { ':one': 1, ':limit': limit, ':ttl': expiresAtEpoch },
      ReturnValues: 'UPDATED_NEW',
    })
    return out?.count as number
  } catch (err) {
    if (isConditionalCheckFailed(err)) return undefined
    throw err
  }
}

/** @returns the month's count including this request, or undefined when the cap is reached. */
export async function consumeMonthlyUsage(
  tenant: TenantContext,
  month: string,
  cap: number | null,
): Promise<number | undefined> {
  // A cap of 0 admits nothing; the condition below would let the month's first request through.
  if (cap !== null && cap <= 0) return undefined
  try {
    const out = await updateItem({
      Key: keys.monthlyUsage(tenant, month),
      UpdateExpression: 'ADD #count :one',
      ...(cap === null ? {} : { ConditionExpression: 'attribute_not_exists(#count) OR #count < :cap' }),
      ExpressionAttributeNames: { '#count': 'count' },
      ExpressionAttributeValues: cap === null ? { ':one': 1 } : { ':one': 1, ':cap': cap },
      ReturnValues: 'UPDATED_NEW',
    })
    return out?.count as number
  } catch (err) {
    if (isConditionalCheckFailed(err)) return undefined
    throw err
  }
}

/**
 * Records a usage alert notification once per month and threshold: the marker's condition makes a
 * second write (a retried request, a concurrent one) a no-op.
 */
export async function recordUsageAlert(
  tenant: TenantContext,
  month: string,
  percent: number,
  notification: TransactItem,
): Promise<void> {
  try {
    await transact([
      {
        Put: {
          Item: { ...keys.usageAlert(tenant, month, percent), type: 'usage_alert_marker' },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      notification,
    ])
  } catch (err) {
    if (!(err instanceof TransactionConditionFailed)) throw err
  }
}
