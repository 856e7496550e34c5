/**
 * The reports' own indexes (docs/decisions/0018-reports-and-exports.md, 0022): an item is in one
 * only while it carries that index's keys.
 *
 * - rpt1, assignments by certificate expiry: each active, completed or expired enrollment under
 *   `T#<t>#ASSIGN`, sorted by `<certificate_expires_at>#<id>`, `~#<id>` for a completion that never
 *   expires, `!#<id>` without a completion. Compliance at `as_of` is then a key range per status.
 * - act1, activity (activity-index.ts, KEYS_ONLY): enrollments with activity by last activity,
 *   and every user by last sign-in. A period's activity is a key range.
 */
import { isAssignment } from '../domain/reports/compliance.ts'
import type { Enrollment } from '../domain/enrollments/enrollment.ts'
import type { TenantContext } from '../domain/tenants/tenant.ts'
import type { User } from '../domain/users/user.ts'
import { activityIndex, enrollmentActivityAttributes, userActivityAttributes } from './activity-index.ts'
import type { Item } from './db.ts'
import { keys } from './keys.ts'

const rpt1 = { name: 'rpt1', pk: 'rpt1pk', sk: 'rpt1sk' } as const

export const reportIndexes = { assignments: rpt1, activity: activityIndex } as const
export const reportIndexList = [rpt1, activityIndex] as const

/** Where an assignment sorts on rpt1: by expiry; no completion first, a lasting one last. */
export function assignmentSortValue(e: Pick<Enrollment, 'completedAt' | 'certificateExpiresAt'>): string {
  if (e.completedAt === null) return keys.noCompletion
  return e.certificateExpiresAt ?? keys.missingDate
}

/** The report index keys an enrollment item carries (none when it is in neither index). */
export function enrollmentReportKeys(tenant: TenantContext, e: Enrollment): Item {
  return {
    ...(isAssignment(e.status)
      ? {
          [rpt1.pk]: keys.assignmentsIndexPk(tenant),
          [rpt1.sk]: keys.sortKey(assignmentSortValue(e), e.id),
        }
      : {}),
    ...enrollmentActivityAttributes(e),
  }
}

/** Every user is on act1 by their last sign-in (its partition is the table's own: no tenant needed). */
export function userReportKeys(
  _tenant: TenantContext,
  user: Pick<User, 'id' | 'lastLoginAt' | 'userType'>,
): Item {
  return userActivityAttributes(user)
}
