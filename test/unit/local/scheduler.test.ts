import { afterEach, describe, expect, it, vi } from 'vitest'
import { startJobScheduler } from '../../../local/scheduler.ts'
import { jobNames, jobSchedule } from '../../../shared/jobs/schedule.ts'

afterEach(() => vi.useRealTimers())

const start = Date.UTC(2026, 2, 10, 12)
const minutes = (n: number) => n * 60_000

describe('Function: startJobScheduler', () => {
  it('runs each job at its period (here the 15-minute ones) with the time it was due, like the AWS rules', async () => {
    // Prepare
    vi.useFakeTimers({ now: start })
    const runs: [string, string][] = []
    const scheduler = startJobScheduler({ run: async (job, at) => void runs.push([job, at]) })

    // Act
    await vi.advanceTimersByTimeAsync(minutes(14))
    const before = runs.length
    await vi.advanceTimersByTimeAsync(minutes(16))
    await scheduler.stop()

    // Assess
    expect(before).toBe(0)
    const at = (n: number) => new Date(start + minutes(n)).toISOString()
    expect(runs.sort()).toEqual(
      jobNames
        .filter((job) => jobSchedule[job].everyMinutes === 15)
        .flatMap(
          (job) =>
            [
              [job, at(15)],
              [job, at(30)],
            ] as [string, string][],
        )
        .sort(),
    )
  })

  it('keeps running after a failed run, and never starts a job while its last run is going', async () => {
    // Prepare: the first run fails, the second hangs for 40 minutes
    vi.useFakeTimers({ now: start })
    let calls = 0
    const scheduler = startJobScheduler({
      run: async (job) => {
        if (job !== jobNames[0]) return
        calls += 1
        if (calls === 1) throw new Error('store unavailable')
        if (calls === 2) await new Promise((resolve) => setTimeout(resolve, minutes(40)))
      },
    })

    // Act + Assess
    await vi.advanceTimersByTimeAsync(minutes(31))
    expect(calls).toBe(2)
    await vi.advanceTimersByTimeAsync(minutes(30))
    expect(calls).toBe(2)
    await vi.advanceTimersByTimeAsync(minutes(10))
    expect(calls).toBe(3)
    await scheduler.stop()
  })
})
