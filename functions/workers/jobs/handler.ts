/**
 * The scheduled jobs' Lambda: one EventBridge rule per job (lib/scheduled-jobs.ts) invokes it with
 * `{job, at}` (`at` the rule's scheduled time); the local scheduler calls it the same way. The job
 * registry decides what runs; the summary is logged and returned.
 */
import * as v from 'valibot'
import { jobs } from '../../../shared/jobs/registry.ts'
import { jobNames } from '../../../shared/jobs/schedule.ts'
import { errorFields, log } from '../../../shared/log.ts'

const JobEvent = v.object({
  job: v.picklist(jobNames),
  at: v.optional(v.pipe(v.string(), v.isoTimestamp())),
})

export const handler = async (event: unknown): Promise<Record<string, number>> => {
  const parsed = v.safeParse(JobEvent, event)
  if (!parsed.success) {
    log('error', 'scheduled job event refused', { issue: parsed.issues[0]?.message })
    throw new Error('The scheduled job event names no known job')
  }
  const { job } = parsed.output
  const at = new Date(parsed.output.at ?? Date.now()).toISOString()
  try {
    const summary = await jobs[job](at)
    log('info', 'scheduled job ran', { job, at, ...summary })
    return summary
  } catch (err) {
    log('error', 'scheduled job failed', { job, at, ...errorFields(err) })
    throw err
  }
}
