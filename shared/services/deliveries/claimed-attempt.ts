/**
 * One queued attempt, for webhook deliveries and record-store statements alike: claim the attempt
 * (shared/domain/attempts.ts) with a write that reads the row too, make it, record the outcome,
 * queue the next.
 * An exception while making it is that attempt's failure, not the message's: it is logged by name
 * and message, and becomes a failed outcome (reason `secret_unreadable` or `internal_error`) that
 * is recorded and followed by the next attempt like any other, so the row never waits pending for
 * the DLQ. Only an unavailable store is left to SQS, since nothing could be recorded either: the
 * message comes back, and its copy takes the claim over once the lease ran out.
 */
import { SealedValueError } from '../../crypto/secret-box.ts'
import {
  ATTEMPT_FAULT_REASONS,
  attemptStep,
  statusAfterFailure,
  type AttemptRow,
} from '../../domain/attempts.ts'
import { ServiceUnavailableError } from '../../domain/errors.ts'
import { errorFields, log } from '../../log.ts'
import type { Claim } from '../../store/deliveries/delivery-log.ts'

export interface ClaimedAttempt {
  readonly attempt: number
  readonly maxAttempts: number
  /** The log line's message and the ids it names (never a secret or a body). */
  readonly log: { readonly msg: string; readonly [id: string]: string }
}

export interface AttemptFailure {
  readonly status: 'pending' | 'failed'
  readonly reason: string
}

/**
 * @returns what `make` returns, or `fault`'s failed outcome when `make` threw.
 * @example
 * const outcome = await outcomeOrFault(() => deliver(delivery), (f) => ({ ...f, httpStatus: null }), {
 *   attempt: 2, maxAttempts: 5, log: { msg: 'webhook attempt threw', deliveryId: delivery.id },
 * })
 */
export async function outcomeOrFault<O>(
  make: () => Promise<O>,
  fault: (failure: AttemptFailure) => O,
  claimed: ClaimedAttempt,
): Promise<O> {
  try {
    return await make()
  } catch (err) {
    if (err instanceof ServiceUnavailableError) throw err
    const { msg, ...ids } = claimed.log
    log('error', msg, { ...ids, attempt: claimed.attempt, ...errorFields(err) })
    return fault({
      status: statusAfterFailure(claimed.attempt, claimed.maxAttempts),
      reason:
        err instanceof SealedValueError
          ? ATTEMPT_FAULT_REASONS.secretUnreadable
          : ATTEMPT_FAULT_REASONS.internal,
    })
  }
}

/** What `make` returns when the row went away instead of being attempted: nothing to record. */
export const ROW_GONE = Symbol('row gone')

/** One queued attempt of a row of some delivery log, and how to make and record it. */
export interface QueuedAttempt<R extends AttemptRow, O extends { readonly status: string }> {
  readonly attempt: number
  readonly maxAttempts: number
  /**
   * Claims attempt `attempt` in one conditional write (strongly consistent): the row as claimed,
   * or, refused, the row as it stands (undefined when it is gone).
   */
  readonly claim: () => Promise<Claim<R>>
  readonly make: (row: R) => Promise<O | typeof ROW_GONE>
  /** The outcome of an attempt that threw. */
  readonly fault: (failure: AttemptFailure) => O
  readonly record: (row: R, outcome: O) => Promise<void>
  /** Queues attempt `attempt + 1` after its delay (nothing after the last). */
  readonly queueNext: () => Promise<void>
  /** The log line of an attempt that threw: its message and the row's ids. */
  readonly log: (row: R) => ClaimedAttempt['log']
}

/**
 * Runs one queued attempt. A duplicate message (the attempt already claimed) does nothing; a copy
 * of one whose worker died finishes its job. A failure with attempts left schedules the next
 * through the queue's delivery delay, never by sleeping. The claim comes first and says what the
 * row is: a refused claim of an attempt already recorded re-queues its successor (it may have been
 * lost); any other refusal (a live claim, a finished, later or missing row) does nothing.
 * @returns the status the attempt recorded (`pending` when another follows), undefined when none was made
 */
export async function runQueuedAttempt<R extends AttemptRow, O extends { readonly status: string }>(
  a: QueuedAttempt<R, O>,
): Promise<O['status'] | undefined> {
  const { attempt, maxAttempts } = a
  const claim = await a.claim()
  if (!('claimed' in claim)) {
    if (attemptStep(claim.refused, attempt) === 'queue-next') await a.queueNext()
    return undefined
  }
  const row = claim.claimed
  const outcome = await outcomeOrFault(() => a.make(row), a.fault, { attempt, maxAttempts, log: a.log(row) })
  if (outcome === ROW_GONE) return undefined
  await a.record(row, outcome)
  if (outcome.status === 'pending') await a.queueNext()
  return outcome.status
}
