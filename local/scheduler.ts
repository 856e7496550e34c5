/**
 * The local stand-in for the jobs' EventBridge rules: each job of shared/jobs/schedule.ts runs on
 * its period (15 minutes, a day for certificate-expiry) through the same handler as the AWS jobs Lambda, one run at a time, with
 * the time it was due as `at`. `lms jobs run <job>` runs one at once.
 */
import { handler as jobsHandler } from '../functions/workers/jobs/handler.ts'
import { jobNames, jobSchedule, type JobName } from '../shared/jobs/schedule.ts'
import { runAs } from './iam/invocation.ts'

export interface SchedulerOptions {
  /** What a tick calls; by default the jobs Lambda's handler. */
  readonly run?: (job: JobName, at: string) => Promise<unknown>
  readonly now?: () => number
}

export function startJobScheduler({
  run = (job, at) => runAs('scheduled-jobs', () => jobsHandler({ job, at })),
  now = Date.now,
}: SchedulerOptions = {}): { stop(): Promise<void> } {
  let running = true
  const timers = new Set<NodeJS.Timeout>()
  const inFlight = new Set<Promise<unknown>>()
  for (const job of jobNames) {
    const everyMs = jobSchedule[job].everyMinutes * 60_000
    const schedule = (dueAt: number) => {
      const timer = setTimeout(
        () => {
          timers.delete(timer)
          // A failure is logged by the handler; the next period runs again, as a rule would.
          const current = run(job, new Date(dueAt).toISOString()).catch(() => undefined)
          inFlight.add(current)
          void current.finally(() => {
            inFlight.delete(current)
            if (running) schedule(Math.max(dueAt + everyMs, now()))
          })
        },
        Math.max(0, dueAt - now()),
      )
      timers.add(timer)
    }
    schedule(now() + everyMs)
  }
  return {
    stop: async () => {
      running = false
      for (const timer of timers) clearTimeout(timer)
      await Promise.all(inFlight)
    },
  }
}
