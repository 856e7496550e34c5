import { describe, expect, it } from 'vitest'
import { attemptStep } from '../../../shared/domain/attempts.ts'

const row = (status: string, attempts: number, attemptRecorded: boolean) => ({
  status,
  attempts,
  attemptRecorded,
})

describe('attemptStep: what a worker does with attempt message n', () => {
  it('claims the next attempt', () => {
    expect(attemptStep(row('pending', 0, true), 1)).toBe('claim')
    expect(attemptStep(row('pending', 2, true), 3)).toBe('claim')
  })

  it('tries to take over attempt n while it is only claimed (the store checks the lease)', () => {
    expect(attemptStep(row('pending', 3, false), 3)).toBe('claim')
  })

  it('queues attempt n + 1 again when attempt n was recorded but its successor may be lost', () => {
    expect(attemptStep(row('pending', 3, true), 3)).toBe('queue-next')
  })

  it('skips finished rows, missing rows, and attempts long past or not yet due', () => {
    expect(attemptStep(row('delivered', 0, true), 1)).toBe('skip')
    expect(attemptStep(row('failed', 4, false), 5)).toBe('skip')
    expect(attemptStep(undefined, 1)).toBe('skip')
    expect(attemptStep(row('pending', 3, true), 2)).toBe('skip')
    expect(attemptStep(row('pending', 1, true), 3)).toBe('skip')
  })
})
