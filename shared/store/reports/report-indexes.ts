/**
 * The reports' own indexes (docs/decisions/0018-reports-and-exports.md, 0022): an item is in one
 * only while it carries that index's keys.
 *
 * - rpt1, assignments by certificate expiry: each active, completed or expired enrollment under
 *   `T#<t>#ASSIGN`, sorted by `<certificate_expires_at>#<id>`, `~#<id>` for a completion that never
 *   expires, `!#<id>` without a completion. Compliance at `as_of` is then a key range per status.
 * - act1, activity (activity-index.ts, KEYS_ONLY): enrollments with activity by last activity,
 *   every user by last sign-in, and users by latest activity. A period's activity is a key range.
 * - act2, one user's activity (KEYS_ONLY, decision 0024): the same entries by user.
 * - rpt3, completions by score: each completed enrollment under `T#<t>#SCORES` by
 *   `<score, fixed width>#<id>` (`~#<id>` without a score, so it sorts last ascending and first
 *   descending, as compareScore orders them). sort_by=score pages it with a Limit.
 * - rpt5 / rpt6, one course's completions by completion time and its assignments in rpt1's order
 *   (KEYS_ONLY, decision 0025): the one-course completions and compliance pages read a Limit of
 *   keys, then the page's items by key.
 * - rpt7, the tenant's enrollments of one status by enrollment time (KEYS_ONLY, 0025): the
 *   enrollments report filtered by status pages its keys, then reads the page by key.
 * - rpt4, a course's enrollments by creation: every enrollment under `T#<t>#CCREATED#<courseId>`
 *   by `<created_at>#<id>`, so the part of a day a performance period covers is a key range.
 */
import { isAssignment } from '../../domain/reports/compliance.ts'
import type { Enrollment } from '../../domain/enrollments/enrollment.ts'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import type { User } from '../../domain/users/user.ts'
import {
  activityIndex,
  enrollmentActivityAttributes,
  userActivityAttributes,
  userActivityIndex,
} from './activity-index.ts'
import type { Item } from '../core/db.ts'
import { indexNamed, keys } from '../core/keys.ts'

const rpt1 = indexNamed('rpt1')
const rpt3 = indexNamed('rpt3')
const rpt4 = indexNamed('rpt4')
const rpt5 = indexNamed('rpt5')
const rpt6 = indexNamed('rpt6')
const rpt7 = indexNamed('rpt7')

export const reportIndexes = {
  assignments: rpt1,
  activity: activityIndex,
  userActivity: userActivityIndex,
  scores: rpt3,
  courseCreated: rpt4,
  courseCompletions: rpt5,
  courseAssignments: rpt6,
  statusEnrollments: rpt7,
} as const
export const reportIndexList = [rpt1, activityIndex, userActivityIndex, rpt3, rpt4, rpt5, rpt6, rpt7] as const

/**
 * A score as a sort key that orders as the number does: fixed width, four decimals; a negative
 * score (never written by the quiz rules, kept orderable all the same) sorts before every other.
 */
export function scoreSortValue(score: number | null): string {
  if (score === null || !Number.isFinite(score)) return keys.missingDate
  const digits = (n: number) => n.toFixed(4).padStart(14, '0')
  return score < 0 ? `-${digits(1e9 + score)}` : digits(score)
}

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
          [rpt6.pk]: keys.courseAssignmentsIndexPk(tenant, e.courseId),
          [rpt6.sk]: keys.sortKey(assignmentSortValue(e), e.id),
        }
      : {}),
    ...(e.completedAt !== null
      ? {
          [rpt3.pk]: keys.scoresIndexPk(tenant),
          [rpt3.sk]: keys.sortKey(scoreSortValue(e.score), e.id),
          [rpt5.pk]: keys.courseCompletionsIndexPk(tenant, e.courseId),
          [rpt5.sk]: keys.sortKey(e.completedAt, e.id),
        }
      : {}),
    [rpt4.pk]: keys.courseCreatedIndexPk(tenant, e.courseId),
    [rpt4.sk]: keys.sortKey(e.createdAt, e.id),
    [rpt7.pk]: keys.statusEnrollmentsIndexPk(tenant, e.status),
    [rpt7.sk]: keys.sortKey(e.enrolledAt, e.id),
    ...userActivityKeys(tenant, e.userId, enrollmentActivityAttributes(e)),
  }
}

/** An act1 value, on act2 too: the same entry in its user's partition (decision 0024). */
export function userActivityKeys(tenant: TenantContext, userId: string, activity: Item): Item {
  return activity[userActivityIndex.sk] === undefined
    ? activity
    : { ...activity, [userActivityIndex.pk]: keys.userActivityIndexPk(tenant, userId) }
}

/** Every user is on act1 by their last sign-in, and on act2 in their own partition. */
export function userReportKeys(
  tenant: TenantContext,
  user: Pick<User, 'id' | 'lastLoginAt' | 'userType'>,
): Item {
  return userActivityKeys(tenant, user.id, userActivityAttributes(user))
}
