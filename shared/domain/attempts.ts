/**
 * The attempt protocol that webhook deliveries and record-store statements share. A worker claims
 * attempt n, makes it, records the outcome, then queues attempt n + 1. A worker can die at any of
 * those steps, and SQS then hands message n out again: that copy must finish the job, not be
 * dropped as a duplicate, or the row would stay pending for good.
 */

/**
 * How long a claimed attempt is held before a redelivered message may take it over. Longer than a
 * worker can run (its Lambda timeout is 30 s), so a live attempt is never made twice; shorter than
 * the queues' visibility timeout (180 s), so the redelivered copy finds the claim expired.
 */
export const CLAIM_LEASE_MS = 60_000

export interface AttemptRow {
  readonly status: string
  readonly attempts: number
  /** The outcome of attempt `attempts` is recorded (false while it is only claimed). */
  readonly attemptRecorded: boolean
}

/**
 * - `claim`: attempt `attempt` is next (or its claim may have been abandoned: the store decides
 *   by the lease);
 * - `queue-next`: attempt `attempt` was made and recorded but its successor may never have been
 *   queued; queueing it again is safe, since only one copy can claim it;
 * - `skip`: a finished row, or a message for an attempt long past.
 */
export function attemptStep(row: AttemptRow | undefined, attempt: number): 'claim' | 'queue-next' | 'skip' {
  if (!row || row.status !== 'pending') return 'skip'
  if (row.attempts === attempt - 1) return 'claim'
  if (row.attempts === attempt) return row.attemptRecorded ? 'queue-next' : 'claim'
  return 'skip'
}

/**
 * The reasons recorded for an attempt that threw on our side after it was claimed: the receiver
 * never saw it, so it shows no HTTP status. A stored secret that does not open (tampered with,
 * moved from another record, or of an old format) says so; anything else is `internal_error`.
 */
export const ATTEMPT_FAULT_REASONS = {
  secretUnreadable: 'secret_unreadable',
  internal: 'internal_error',
} as const

/** After a failed attempt the row waits for the next one, unless it was the last. */
export function statusAfterFailure(attempt: number, maxAttempts: number): 'pending' | 'failed' {
  return attempt >= maxAttempts ? 'failed' : 'pending'
}

/** The delivery logs' order: newest first. */
export function newestFirst(a: { readonly createdAt: string }, b: { readonly createdAt: string }): number {
  return a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0
}
