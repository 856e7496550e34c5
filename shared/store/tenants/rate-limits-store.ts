/**
 * Counters for the per-key minute window, the per-tenant monthly usage and the per-address windows
 * (keyless routes, failed authentications). Each is one atomic conditional ADD: the request that
 * would pass the limit fails its condition, so no read-then-write race can ever admit it, however
 * many requests arrive at once.
 */
import type { UpdateCommandInput } from '@aws-sdk/lib-dynamodb'
import * as v from 'valibot'
import type { Effects } from '../../domain/events.ts'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import { isConditionalCheckFailed, updateItem, type Item } from '../core/db.ts'
import { decodeItem } from '../core/decode.ts'
import { cond, conditionExpression, updateExpression } from '../core/expression.ts'
import { keys, TTL_ATTRIBUTE, type Key } from '../core/keys.ts'
import { effectSteps } from '../outbox/outbox-items.ts'
import { isRefused } from '../core/store-errors.ts'
import { commit, type Step } from '../core/transaction.ts'

type UpdateParams = Omit<UpdateCommandInput, 'TableName'>

/** What a counted write returns: the count including this request. */
const Counted = v.object({ count: v.number() })

/** Not a route key (those read `METHOD /path`), so the failures window never meets a route's. */
const FAILED_AUTH = 'failed-authentication'

/**
 * One more in a fixed window unless it already holds `limit`. Every request of a window carries the
 * same expiry (the window's end plus its length), so setting it again changes nothing.
 */
export function windowParams(key: Key, limit: number, expiresAtEpoch: number): UpdateParams {
  const notFull = cond.or(cond.notExists('count'), cond.lt('count', limit))
  return {
    Key: key,
    ...updateExpression({ add: { count: 1 }, set: { [TTL_ATTRIBUTE]: expiresAtEpoch } }, notFull),
    ReturnValues: 'UPDATED_NEW',
  }
}

/** @returns the count including this request, or undefined when the condition refused it */
async function countedUnlessFull(params: UpdateParams): Promise<number | undefined> {
  try {
    const out: Item = (await updateItem(params)) ?? {}
    return decodeItem('rate window', Counted, { pk: params.Key?.pk, sk: params.Key?.sk, ...out }).count
  } catch (err) {
    if (isConditionalCheckFailed(err)) return undefined
    throw err
  }
}

/** @returns the count including this request, or undefined when the window is full. */
export function consumeMinuteWindow(
  keyId: string,
  windowStart: number,
  limit: number,
  expiresAtEpoch: number,
): Promise<number | undefined> {
  return countedUnlessFull(windowParams(keys.rateWindow(keyId, windowStart), limit, expiresAtEpoch))
}

/** The same fixed window, per client address on a keyless route. */
export function consumeIpWindow(
  route: string,
  ipHash: string,
  windowStart: number,
  limit: number,
  expiresAtEpoch: number,
): Promise<number | undefined> {
  return countedUnlessFull(windowParams(keys.ipWindow(route, ipHash, windowStart), limit, expiresAtEpoch))
}

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
  return countedUnlessFull(
    windowParams(keys.ipWindow(FAILED_AUTH, ipHash, windowStart), limit, expiresAtEpoch),
  )
}

/** One more request in the tenant's month, under `cap` when there is one. */
export function monthlyUsageParams(tenant: TenantContext, month: string, cap: number | null): UpdateParams {
  const underCap = cap === null ? undefined : cond.or(cond.notExists('count'), cond.lt('count', cap))
  return {
    Key: keys.monthlyUsage(tenant, month),
    ...updateExpression({ add: { count: 1 } }, underCap),
    ReturnValues: 'UPDATED_NEW',
  }
}

/** @returns the month's count including this request, or undefined when the cap is reached. */
export async function consumeMonthlyUsage(
  tenant: TenantContext,
  month: string,
  cap: number | null,
): Promise<number | undefined> {
  // A cap of 0 admits nothing; the condition would let the month's first request through.
  if (cap !== null && cap <= 0) return undefined
  return countedUnlessFull(monthlyUsageParams(tenant, month, cap))
}

export type UsageAlertRefusal = 'already_alerted'

/** A month and threshold's marker (refused when already written) and the alert it guards. */
export function usageAlertSteps(
  tenant: TenantContext,
  threshold: { readonly month: string; readonly percent: number },
  effects: Effects,
): Step<UsageAlertRefusal>[] {
  const marker = {
    ...keys.usageAlert(tenant, threshold.month, threshold.percent),
    type: 'usage_alert_marker',
  }
  return [
    {
      item: { Put: { Item: marker, ...conditionExpression(cond.notExists()) } },
      refusal: 'already_alerted',
    },
    ...effectSteps(tenant, effects),
  ]
}

/**
 * Records a usage alert once per month and threshold: the marker's condition makes a second write
 * (a later run of the job, a concurrent one) a no-op.
 * @returns whether this call recorded it
 */
export async function recordUsageAlert(
  tenant: TenantContext,
  threshold: { readonly month: string; readonly percent: number },
  effects: Effects,
): Promise<boolean> {
  try {
    await commit(usageAlertSteps(tenant, threshold, effects))
    return true
  } catch (err) {
    if (!isRefused<UsageAlertRefusal>(err, 'already_alerted')) throw err
    return false
  }
}
