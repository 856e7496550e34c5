import { describe, expect, it } from 'vitest'
import { statusAfterFailure } from '../../../shared/domain/attempts.ts'
import { ServiceUnavailableError } from '../../../shared/domain/errors.ts'
import {
  outcomeOrFault,
  ROW_GONE,
  runQueuedAttempt,
} from '../../../shared/services/deliveries/claimed-attempt.ts'
import type { Claim } from '../../../shared/store/deliveries/delivery-log.ts'

const claimed = (attempt: number) => ({ attempt, maxAttempts: 5, log: { msg: 'attempt threw', id: 'd1' } })
interface Outcome {
  readonly status: string
  readonly reason: string | null
  readonly httpStatus: number | null
}
const fault = (f: { status: string; reason: string }): Outcome => ({ ...f, httpStatus: null })

describe('outcomeOrFault: an exception in a claimed attempt', () => {
  it('is the attempt failure: pending while attempts remain, failed after the last', async () => {
    // Act
    const second = await outcomeOrFault(
      () => Promise.reject(new Error('Not a sealed value')),
      fault,
      claimed(2),
    )
    const fifth = await outcomeOrFault(
      () => Promise.reject(new TypeError('x is undefined')),
      fault,
      claimed(5),
    )

    // Assess
    expect(second).toEqual({ status: 'pending', reason: 'internal_error', httpStatus: null })
    expect(fifth).toEqual({ status: 'failed', reason: 'internal_error', httpStatus: null })
  })

  it('leaves an unavailable store to SQS: the copy of the message retries the same attempt', async () => {
    // Prepare
    const unavailable = new ServiceUnavailableError()

    // Act
    const made = outcomeOrFault(() => Promise.reject(unavailable), fault, claimed(2))

    // Assess
    await expect(made).rejects.toBe(unavailable)
  })

  it('passes an attempt that did not throw through as it is', async () => {
    const outcome: Outcome = { status: 'delivered', reason: null, httpStatus: 204 }
    expect(await outcomeOrFault(() => Promise.resolve(outcome), fault, claimed(1))).toBe(outcome)
  })
})

describe('statusAfterFailure', () => {
  it('keeps the row pending until the last attempt failed', () => {
    expect([1, 4, 5, 6].map((n) => statusAfterFailure(n, 5))).toEqual([
      'pending',
      'pending',
      'failed',
      'failed',
    ])
  })
})

describe('runQueuedAttempt: one queued attempt of a delivery-log row', () => {
  interface Row {
    readonly id: string
    readonly status: string
    readonly attempts: number
    readonly attemptRecorded: boolean
  }
  const pending = (attempts: number, attemptRecorded = true): Row => ({
    id: 'r1',
    status: 'pending',
    attempts,
    attemptRecorded,
  })

  /**
   * The store's claim condition (shared/store/deliveries/delivery-log.ts): attempt n of a pending row from
   * n - 1, or from an unrecorded claim of n whose lease ran out (`leaseOver`).
   */
  function claimOf(row: Row | undefined, attempt: number, leaseOver: boolean): Claim<Row> {
    const claimable =
      row?.status === 'pending' &&
      (row.attempts === attempt - 1 || (row.attempts === attempt && !row.attemptRecorded && leaseOver))
    return claimable ? { claimed: { ...row, attempts: attempt, attemptRecorded: false } } : { refused: row }
  }

  /** Runs attempt `attempt` of `row`; `made` is what making it returns. */
  async function run(
    row: Row | undefined,
    attempt: number,
    made: () => Promise<Outcome | typeof ROW_GONE>,
    leaseOver = false,
  ) {
    const calls: string[] = []
    await runQueuedAttempt({
      attempt,
      maxAttempts: 5,
      claim: () => (calls.push('claim'), Promise.resolve(claimOf(row, attempt, leaseOver))),
      make: () => (calls.push('make'), made()),
      fault,
      record: (_, outcome) => (calls.push(`record ${outcome.status} ${outcome.reason}`), Promise.resolve()),
      queueNext: () => (calls.push('queue-next'), Promise.resolve()),
      log: (r) => ({ msg: 'attempt threw', id: r.id }),
    })
    return calls
  }
  const answered = (status: string, reason: string | null) => () =>
    Promise.resolve({ status, reason, httpStatus: 500 })

  it('claims, makes and records the attempt, then queues the next while the row stays pending', async () => {
    expect(await run(pending(1), 2, answered('pending', 'http_500'))).toEqual([
      'claim',
      'make',
      'record pending http_500',
      'queue-next',
    ])
    expect(await run(pending(0), 1, answered('delivered', null))).toEqual([
      'claim',
      'make',
      'record delivered null',
    ])
  })

  it('records an attempt that threw as its failure and follows it with the next', async () => {
    expect(await run(pending(1), 2, () => Promise.reject(new Error('boom')))).toEqual([
      'claim',
      'make',
      'record pending internal_error',
      'queue-next',
    ])
  })

  it('does nothing for a duplicate whose attempt another copy holds, a finished row or a missing one', async () => {
    // Each is a refused claim, and the claim is the only call.
    expect(await run(pending(1, false), 1, answered('delivered', null))).toEqual(['claim'])
    expect(await run({ ...pending(1), status: 'delivered' }, 2, answered('delivered', null))).toEqual([
      'claim',
    ])
    expect(await run(pending(3), 2, answered('delivered', null))).toEqual(['claim'])
    expect(await run(undefined, 1, answered('delivered', null))).toEqual(['claim'])
  })

  it('finishes the job of a copy whose worker died: the claim is taken over once its lease ran out', async () => {
    expect(await run(pending(1, false), 1, answered('delivered', null), true)).toEqual([
      'claim',
      'make',
      'record delivered null',
    ])
  })

  it('queues the next attempt again when this one was recorded but its successor may be lost', async () => {
    expect(await run(pending(2), 2, answered('delivered', null))).toEqual(['claim', 'queue-next'])
  })

  it('records nothing for a row that went away while it was attempted', async () => {
    expect(await run(pending(0), 1, () => Promise.resolve(ROW_GONE))).toEqual(['claim', 'make'])
  })
})
