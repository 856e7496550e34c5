/**
 * The jobs by name: what `lms jobs run <name>`, the local scheduler and the AWS jobs Lambda call.
 * A job takes the moment it runs for (`--at` places it in time) and answers a small JSON summary.
 * A new job is one line here and one in ./schedule.ts.
 */
import { runCertificateExpiry } from '../services/enrollments/certificate-expiry-job.ts'
import { runEnrollmentExpiry } from '../services/enrollments/enrollment-expiry-job.ts'
import { runUsageAlerts } from '../services/billing/usage-alerts-job.ts'
import { runStuckExports } from '../services/files/stuck-exports-job.ts'
import type { JobName } from './schedule.ts'

export type Job = (at: string) => Promise<Record<string, number>>

export const jobs: Record<JobName, Job> = {
  'enrollment-expiry': runEnrollmentExpiry,
  'usage-alerts': runUsageAlerts,
  'stuck-exports': runStuckExports,
  'certificate-expiry': runCertificateExpiry,
}
