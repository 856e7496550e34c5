/** `lms enrollment approve|deny` and `lms jobs run <job>`: the enrollment lifecycle and the scheduled jobs. */
import { toEnrollmentResource } from '../functions/enrollments/representation.ts'
import { jobs } from '../shared/jobs/registry.ts'
import { isJobName, jobNames } from '../shared/jobs/schedule.ts'
import { approveEnrollment, denyEnrollment } from '../shared/services/enrollments/enrollment-lifecycle.ts'
import { required, UsageError } from './args.ts'
import { at, tenantOf, command, type Command } from './flags.ts'

export const lifecycleCommands: Record<string, Command> = {
  'enrollment approve': command(
    '--tenant S --enrollment ID [--at ISO]',
    'approve an enrollment pending approval',
    async (f) =>
      toEnrollmentResource(await approveEnrollment(await tenantOf(f), required(f, 'enrollment'), at(f))),
  ),
  'enrollment deny': command(
    '--tenant S --enrollment ID [--at ISO]',
    'deny an enrollment pending approval (dropped)',
    async (f) =>
      toEnrollmentResource(await denyEnrollment(await tenantOf(f), required(f, 'enrollment'), at(f))),
  ),
  /** `lms jobs run <name> [--at ISO]`: runs now what the schedule runs; the third word names the job. */
  'jobs run': command(`${jobNames.join('|')} [--at ISO]`, 'run a scheduled job now', async (f, words) => {
    const name = words[2]
    if (name === undefined || !isJobName(name))
      throw new UsageError(`lms jobs run takes one of: ${jobNames.join(', ')}`)
    return jobs[name](at(f) ?? new Date().toISOString())
  }),
}
