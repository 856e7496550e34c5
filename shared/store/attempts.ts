/**
 * The attempt mechanics that webhook deliveries and record-store statements share: an attempt is
 * claimed with a condition on the count it starts from, and only the claimer records its outcome,
 * so a message SQS hands out twice never makes two attempts or counts one twice.
 */
import { conditionally, isConditionalCheckFailed, updateItem } from './db.ts'
import type { Key } from './keys.ts'

/** Takes attempt number `attempt` if nobody has: @returns false for a duplicate or a finished row. */
export async function claimAttemptOn(key: Key, attempt: number, at: string): Promise<boolean> {
  return conditionally(
    updateItem({
      Key: key,
      UpdateExpression: 'SET attempts = :attempt, updated_at = :at',
      ConditionExpression: '#status = :pending AND attempts = :previous',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':attempt': attempt,
        ':previous': attempt - 1,
        ':pending': 'pending',
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
  const values: Record<string, unknown> = { ':at': at, ':pending': 'pending', ':attempt': attempt }
  const sets = Object.entries(outcome).map(([attr, value], i) => {
    names[`#o${i}`] = attr
    values[`:o${i}`] = value
    return `#o${i} = :o${i}`
  })
  names['#status'] = 'status'
  try {
    await updateItem({
      Key: key,
      UpdateExpression: `SET ${sets.join(', ')}, updated_at = :at`,
      ConditionExpression: '#status = :pending AND attempts = :attempt',
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    })
  } catch (err) {
    if (!isConditionalCheckFailed(err)) throw err
  }
}
