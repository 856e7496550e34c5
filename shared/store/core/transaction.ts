/**
 * Transactions whose items say what their condition stands for. A store composes steps (the item
 * plus the refusal its condition means: `email_taken`, `seat_cap`, `stale`); `commit` sends them
 * as one transaction and, when conditions fail, throws WriteRefused naming those refusals.
 */
import { isConditionalCheckFailed, transact, TransactionConditionFailed, type TransactItem } from './db.ts'
import { isEmptyUpdate, updateExpression } from './expression.ts'
import type { Key } from './keys.ts'
import { WriteRefused } from './store-errors.ts'

export interface Step<R = string> {
  readonly item: TransactItem
  /** What a failed condition on this item means; a step without one has no condition. */
  readonly refusal?: R
}

/**
 * An unconditioned ADD of `add`'s non-zero numbers to one item, SETting `set` with them (what the
 * item is, for a first write), or no step when nothing moves: counts that commute.
 */
export function addSteps(
  Key: Key,
  add: Readonly<Record<string, number>>,
  set?: Readonly<Record<string, unknown>>,
): Step<never>[] {
  if (isEmptyUpdate({ add })) return []
  return [{ item: { Update: { Key, ...updateExpression(set ? { add, set } : { add }) } } }]
}

/** DynamoDB's limit of items in one transaction. */
export const MAX_TRANSACTION_ITEMS = 100

/** @throws WriteRefused with the refusals of every step whose condition failed */
export async function commit<R>(steps: readonly Step<R>[]): Promise<void> {
  if (steps.length === 0) return
  try {
    await transact(steps.map((s) => s.item))
  } catch (err) {
    if (!(err instanceof TransactionConditionFailed)) throw err
    const refusals = steps.flatMap((s, i) => (err.failedAt(i) && s.refusal !== undefined ? [s.refusal] : []))
    throw new WriteRefused(refusals, { cause: err })
  }
}

/**
 * Sends a single conditional write (a Put, Update or Delete of db.ts) whose condition stands for
 * `refusal`, so its caller reads the refusal by name as after `commit`.
 * @throws WriteRefused naming `refusal` when the condition does not hold
 */
export async function writeOrRefuse<R>(write: Promise<unknown>, refusal: R): Promise<void> {
  try {
    await write
  } catch (err) {
    if (isConditionalCheckFailed(err)) throw new WriteRefused([refusal], { cause: err })
    throw err
  }
}
