/**
 * Compliance at a point in time (document 001, "States and transitions"): per assigned enrollment
 * (dropped, waitlisted and pending_approval enrollments are not assignments), `compliant` when a
 * current completion exists at `as_of`, `expiring_soon` when that completion expires within 30
 * days of `as_of`, otherwise `non_compliant`.
 */
import type { Enrollment, EnrollmentStatus } from '../enrollments/enrollment.ts'
import type { ComplianceRow, ComplianceStatus } from './rows.ts'

export const EXPIRING_WINDOW_DAYS = 30
const DAY_MS = 86_400_000

export const complianceStatuses = ['compliant', 'non_compliant', 'expiring_soon'] as const

const assignmentStatuses: ReadonlySet<EnrollmentStatus> = new Set(['active', 'completed', 'expired'])
export const isAssignment = (status: EnrollmentStatus): boolean => assignmentStatuses.has(status)

type Completion = Pick<Enrollment, 'completedAt' | 'certificateExpiresAt'>

/** The end of the expiring window that starts at `asOf`. */
export const expiringWindowEnd = (asOf: string): string =>
  new Date(Date.parse(asOf) + EXPIRING_WINDOW_DAYS * DAY_MS).toISOString()

/**
 * Current at `asOf`: completed at or before it, and its certificate (if it expires at all) not yet
 * expired (an expiry exactly at `asOf` is expired).
 */
export function complianceStatus(e: Completion, asOf: string): ComplianceStatus {
  const at = Date.parse(asOf)
  if (e.completedAt === null || Date.parse(e.completedAt) > at) return 'non_compliant'
  if (e.certificateExpiresAt === null) return 'compliant'
  const expires = Date.parse(e.certificateExpiresAt)
  if (expires <= at) return 'non_compliant'
  return expires <= at + EXPIRING_WINDOW_DAYS * DAY_MS ? 'expiring_soon' : 'compliant'
}

/**
 * Whole days from `asOf` to the certificate's expiry, rounded down (negative once it has expired:
 * -1 the day after); null when the certificate never expires or there is none.
 */
export function daysUntilExpiry(e: Completion, asOf: string): number | null {
  if (e.certificateExpiresAt === null) return null
  return Math.floor((Date.parse(e.certificateExpiresAt) - Date.parse(asOf)) / DAY_MS)
}

/** A row for a completion of `asOf`'s past only: a completion after `asOf` did not exist yet. */
export function complianceRow(
  e: Completion & Pick<Enrollment, 'userId' | 'courseId'>,
  courseTitle: string,
  asOf: string,
): ComplianceRow {
  const completedBy = e.completedAt !== null && Date.parse(e.completedAt) <= Date.parse(asOf)
  return {
    user_id: e.userId,
    course_id: e.courseId,
    course_title: courseTitle,
    compliance_status: complianceStatus(e, asOf),
    last_completion_date: completedBy ? e.completedAt : null,
    certificate_expires_at: completedBy ? e.certificateExpiresAt : null,
    days_until_expiry: completedBy ? daysUntilExpiry(e, asOf) : null,
  }
}
