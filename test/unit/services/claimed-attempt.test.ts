import { describe, expect, it } from 'vitest'
import { statusAfterFailure } from '../../../shared/domain/attempts.ts'
import { ServiceUnavailableError } from '../../../shared/domain/errors.ts'
import { outcomeOrFault } from '../../../shared/services/claimed-attempt.ts'

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
