/**
 * The user activity report's reads of act1 (activity-index.ts; this module sends them, so the
 * table's schema can import the index without the store's clients).
 */
import type { Period } from '../domain/reports/user-activity.ts'
import type { TenantContext } from '../domain/tenants/tenant.ts'
import {
  allUsersActivityParams,
  enrollmentsActiveSinceParams,
  signInsParams,
  toEnrollmentActivity,
  usersOfTypeParams,
  toUserActivity,
  type EnrollmentActivity,
  type UserActivityEntry,
} from './activity-index.ts'
import type { UserType } from '../domain/users/user.ts'
import { queryAll } from './db.ts'

export type { EnrollmentActivity, UserActivityEntry }

export async function enrollmentsActiveSince(
  tenant: TenantContext,
  since: string,
): Promise<EnrollmentActivity[]> {
  return (await queryAll(enrollmentsActiveSinceParams(tenant, since))).map(toEnrollmentActivity)
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
  return (await queryAll(allUsersActivityParams(tenant))).map(toUserActivity)
}
