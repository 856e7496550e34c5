/**
 * The scheduled jobs and how often each runs: the one list the AWS schedule rules (lib/), the
 * local scheduler (local/) and the job registry (./registry.ts) are built from. Pure data, so the
 * CDK app reads it without loading the services.
 */
export const jobSchedule = {
  /** Active enrollments whose access days have run out become expired (document 000's state table). */
  'enrollment-expiry': { everyMinutes: 15 },
  /** Owners and admins hear at 80% and 100% of the monthly API cap (document 000, limits: every 15 minutes). */
  'usage-alerts': { everyMinutes: 15 },
  /** Export jobs left `processing` an hour after their lease ran out fail (docs/decisions/0018). */
  'stuck-exports': { everyMinutes: 15 },
  /** Certificates 30 and 7 days before expiry and at it: one notice each, once (docs/decisions/0047). */
  'certificate-expiry': { everyMinutes: 24 * 60 },
} as const satisfies Record<string, { readonly everyMinutes: number }>

export type JobName = keyof typeof jobSchedule
export const jobNames = Object.keys(jobSchedule) as JobName[]

export const isJobName = (name: string): name is JobName => Object.hasOwn(jobSchedule, name)
