/**
 * Making an attempt a worker has claimed, for webhook deliveries and record-store statements alike.
 * An exception while making it is that attempt's failure, not the message's: it is logged by name
 * and message, and becomes a failed outcome (reason `secret_unreadable` or `internal_error`) that the caller records and
 * follows with the next attempt like any other, so the row never waits pending for the DLQ. Only
 * an unavailable store is left to SQS, since nothing could be recorded either: the message comes
 * back, and its copy takes the claim over once the lease ran out (shared/domain/attempts.ts).
 */
import { SealedValueError } from '../crypto/secret-box.ts'
import { ATTEMPT_FAULT_REASONS, statusAfterFailure } from '../domain/attempts.ts'
import { ServiceUnavailableError } from '../domain/errors.ts'
import { errorFields, log } from '../log.ts'

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
