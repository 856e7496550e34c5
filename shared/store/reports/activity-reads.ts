/**
 * The user activity report's reads of act1 (activity-index.ts; this module sends them, so the
 * table's schema can import the index without the store's clients).
 */
import type { Period } from '../../domain/reports/user-activity.ts'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import {
  allUsersByTypeParams,
  enrollmentsActiveSinceSlices,
  signInsParams,
  toEnrollmentActivity,
  usersOfTypeParams,
  toUserActivity,
  type EnrollmentActivity,
  type UserActivityEntry,
} from './activity-index.ts'
import type { UserType } from '../../domain/users/user.ts'
import { queryAll } from '../core/db.ts'

export type { EnrollmentActivity, UserActivityEntry }

/** Key ranges of the activity index read side by side (at most 8 Queries in flight). */
const ACTIVITY_SLICES = 8

export async function enrollmentsActiveSince(
  tenant: TenantContext,
  since: string,
  until: string,
): Promise<EnrollmentActivity[]> {
  const slices = enrollmentsActiveSinceSlices(tenant, since, until, ACTIVITY_SLICES)
  const parts = await Promise.all(slices.map((params) => queryAll(params)))
  return parts.flat().map(toEnrollmentActivity)
}

export async function usersSignedInDuring(
  tenant: TenantContext,
  p: Period,
  type?: UserType,
): Promise<UserActivityEntry[]> {
  const ranges = await Promise.all(signInsParams(tenant, p, type).map((params) => queryAll(params)))
  return ranges.flat().map(toUserActivity)
}

export async function usersOfType(tenant: TenantContext, type: UserType): Promise<UserActivityEntry[]> {
  return (await queryAll(usersOfTypeParams(tenant, type))).map(toUserActivity)
}

export async function allUsersActivity(tenant: TenantContext): Promise<UserActivityEntry[]> {
  const parts = await Promise.all(allUsersByTypeParams(tenant).map((params) => queryAll(params)))
  return parts.flat().map(toUserActivity)
}
