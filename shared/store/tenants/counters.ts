/**
 * The tenant's COUNTERS item: totals kept true in the transaction of each change (users, courses,
 * enrollments), so lists and caps read one item instead of counting. Every attribute besides the
 * key is a number; an absent one reads as 0.
 */
import * as v from 'valibot'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import type { PutCommandInput, UpdateCommandInput } from '@aws-sdk/lib-dynamodb'
import { decodeItem } from '../core/decode.ts'
import { getItem } from '../core/db.ts'
import { updateExpression, type Condition } from '../core/expression.ts'
import { keys, type Key } from '../core/keys.ts'
import type { Step } from '../core/transaction.ts'

export type CounterValues = Readonly<Record<string, number>>

const CountersItem = v.objectWithRest({ pk: v.string(), sk: v.string() }, v.number())

export function countersGetParams(tenant: TenantContext): { Key: Key } {
  return { Key: keys.counters(tenant) }
}

/** @returns every counter of the tenant (none yet: an empty record) */
export async function getCounters(tenant: TenantContext): Promise<CounterValues> {
  const { Key } = countersGetParams(tenant)
  const item = await getItem(Key)
  if (!item) return {}
  const counters: Record<string, number> = {}
  // The key's two strings are all that is not a counter.
  for (const [name, value] of Object.entries(decodeItem('counters', CountersItem, item)))
    if (typeof value === 'number') counters[name] = value
  return counters
}

/** A new tenant's counters item, starting at `initial`. */
export function countersPutParams(
  tenant: TenantContext,
  initial: CounterValues,
): Omit<PutCommandInput, 'TableName'> {
  return { Item: { ...keys.counters(tenant), ...initial } }
}

/**
 * Moves the counters by `deltas` (zero deltas are left out) in a change's transaction; `guard` is a
 * condition on the counters item and the refusal it stands for (a cap).
 */
export function counterStep<R>(
  tenant: TenantContext,
  deltas: CounterValues,
  guard?: { readonly condition: Condition; readonly refusal: R },
): Step<R> {
  return {
    item: { Update: { Key: keys.counters(tenant), ...updateExpression({ add: deltas }, guard?.condition) } },
    ...(guard ? { refusal: guard.refusal } : {}),
  }
}

/** Sets counters to absolute values (a bulk load into an empty tenant), leaving the others as they are. */
export function countersSetParams(
  tenant: TenantContext,
  values: CounterValues,
): Omit<UpdateCommandInput, 'TableName'> {
  return { Key: keys.counters(tenant), ...updateExpression({ set: values }) }
}

/** Whether moving the counters by `deltas` changes anything. */
export const movesCounters = (deltas: CounterValues): boolean => Object.values(deltas).some((d) => d !== 0)
