/**
 * The attempt mechanics that webhook deliveries and record-store statements share: an attempt is
 * claimed with a condition on the count it starts from, and only the claimer records its outcome,
 * so a message SQS hands out twice never makes two attempts or counts one twice. A claim whose
 * worker died is taken over once its lease has run out (see shared/domain/attempts.ts).
 */
import { CLAIM_LEASE_MS } from '../domain/attempts.ts'
import { conditionally, isConditionalCheckFailed, updateItem, type Item } from './db.ts'
import type { Key } from './keys.ts'

const CLAIMED = 'claimed'
const RECORDED = 'recorded'

/** Whether the row's current attempt has its outcome recorded (rows from before claims had states count as recorded). */
export function attemptRecordedOn(item: Item): boolean {
  return item.attempt_state !== CLAIMED
}

/**
 * Takes attempt number `attempt` if nobody has, or if its claimer's lease ran out without an
 * outcome. @returns false for a duplicate, a live claim or a finished row.
 */
export async function claimAttemptOn(key: Key, attempt: number, at: string): Promise<boolean> {
  return conditionally(
    updateItem({
      Key: key,
      UpdateExpression:
        'SET attempts = :attempt, attempt_state = :claimed, claimed_at = :at, updated_at = :at',
      ConditionExpression:
        '#status = :pending AND (attempts = :previous OR (attempts = :attempt AND attempt_state = :claimed AND claimed_at < :expired))',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':attempt': attempt,
        ':previous': attempt - 1,
        ':pending': 'pending',
        ':claimed': CLAIMED,
        ':expired': new Date(Date.parse(at) - CLAIM_LEASE_MS).toISOString(),
        ':at': at,
      },
    }),
  )
}

/** Records the claimed attempt's outcome (`status` and the other attributes given); the row may stay pending. */
export async function recordOutcomeOn(
  key: Key,
  attempt: number,
  outcome: Record<string, unknown> & { status: string },
  at: string,
): Promise<void> {
  const names: Record<string, string> = {}
  const values: Record<string, unknown> = {
    ':at': at,
    ':pending': 'pending',
    ':attempt': attempt,
    ':recorded': RECORDED,
  }
  const sets = Object.entries(outcome).map(([attr, value], i) => {
    names[`#o${i}`] = attr
    values[`:o${i}`] = value
    return `#o${i} = :o${i}`
  })
  names['#status'] = 'status'
  try {
    await updateItem({
      Key: key,
      UpdateExpression: `SET ${sets.join(', ')}, attempt_state = :recorded, updated_at = :at`,
      ConditionExpression: '#status = :pending AND attempts = :attempt',
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    })
  } catch (err) {
    if (!isConditionalCheckFailed(err)) throw err
  }
}
