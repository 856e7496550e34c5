/**
 * Users: the one implementation of the user rules for every channel (API, CLI). Pure rules come
 * from shared/domain; storage from shared/store.
 */
import { randomUUID } from 'node:crypto'
import { requireScope, type Actor } from '../../domain/actor.ts'
import { ConflictError, NotFoundError, RuleViolationError, ValidationError } from '../../domain/errors.ts'
import { planById } from '../../domain/plans/catalog.ts'
import { periodStartAt } from '../../domain/billing/billing-period.ts'
import { seatCapError } from '../../domain/plans/entitlements.ts'
import type { Tenant, TenantContext } from '../../domain/tenants/tenant.ts'
import { validateCustomFields } from '../../domain/users/custom-fields.ts'
import { erasureOf } from '../../domain/users/erasure.ts'
import { applyUserChanges, userChangeEvents, type UserChanges } from '../../domain/users/user-change.ts'
import { changeNeedsAdmin, resolveRole, roleChangeNeedsAdmin, type User } from '../../domain/users/user.ts'
import type { CreateUserInput, UpdateUserInput } from '../../domain/users/user-schemas.ts'
import { newEvent, type Effects } from '../../domain/events.ts'
import { changeMemberships, getGroups } from '../../store/groups/groups-store.ts'
import { retryOnConflict } from '../../store/core/optimistic.ts'
import { isRefused } from '../../store/core/store-errors.ts'
import { memberUserIds } from '../groups/groups-service.ts'
import {
  getUser as getStoredUser,
  insertUser,
  listCustomFieldDefs,
  saveUser,
  type UserRefusal,
} from '../../store/users/users-store.ts'
import { listUsers as listStoredUsers, type UserListQuery } from '../../store/users/users-list.ts'

const nowIso = () => new Date().toISOString()

export async function getUser(tenant: TenantContext, id: string): Promise<User> {
  const user = await getStoredUser(tenant, id)
  if (!user) throw new NotFoundError('user')
  return user
}

export async function listUsers(
  tenant: TenantContext,
  q: Omit<UserListQuery, 'userIds'> & { groupId?: string },
) {
  if (q.groupId === undefined) return listStoredUsers(tenant, q)
  const members = await memberUserIds(tenant, q.groupId)
  if (!members || members.size === 0) return { items: [], total: 0 }
  return listStoredUsers(tenant, { ...q, userIds: members })
}

async function checkGroupIds(tenant: TenantContext, groupIds: readonly string[]): Promise<void> {
  if (groupIds.length === 0) return
  const found = new Map((await getGroups(tenant, groupIds)).map((g) => [g.id, g]))
  groupIds.forEach((id, i) => {
    const group = found.get(id)
    if (!group) throw new ValidationError(`group_ids[${i}]`, `group_ids[${i}] is not a group of this tenant`)
    if (group.kind === 'dynamic') {
      throw new RuleViolationError(
        'group.dynamic',
        `group_ids[${i}] is a dynamic group; its members follow its rule`,
      )
    }
  })
}

export async function createUser(
  tenant: TenantContext,
  input: CreateUserInput,
  actor: Actor,
  at = nowIso(),
): Promise<User> {
  if (roleChangeNeedsAdmin(input.role)) requireScope(actor, 'admin')
  const customFields = validateCustomFields(await listCustomFieldDefs(tenant), input.custom_fields ?? {})
  const groupIds = [...new Set(input.group_ids ?? [])]
  await checkGroupIds(tenant, groupIds)
  const { role, customRoleIds } = resolveRole(input.role)
  const user: User = {
    id: randomUUID(),
    email: input.email,
    firstName: input.first_name,
    lastName: input.last_name,
    role,
    customRoleIds,
    isActive: input.is_active ?? true,
    userType: input.user_type ?? 'internal',
    externalId: input.external_id ?? null,
    customFields,
    locale: input.locale ?? 'en',
    groupIds: [],
    lastLoginAt: null,
    createdAt: at,
    updatedAt: at,
  }
  const effects: Effects = {
    events: [newEvent('user.created', { userId: user.id, email: user.email, role: user.role }, at)],
  }
  try {
    await insertUser(tenant, { user, seatCap: planById(tenant.plan).seatCap, effects })
  } catch (err) {
    throw refusalError(err, tenant, ['email_taken', 'seat_cap'])
  }
  const added = await changeMemberships(
    tenant,
    groupIds.map((groupId) => ({ groupId, userId: user.id })),
    1,
    { requireActiveUser: false, countOnGroup: true },
    at,
  )
  return { ...user, groupIds: added.map((m) => m.groupId).sort() }
}

/**
 * A refused user write as the domain error it stands for, the first of `precedence` that it names;
 * anything else as it is.
 */
function refusalError(err: unknown, tenant: TenantContext, precedence: readonly UserRefusal[]): unknown {
  const refusal = precedence.find((r) => isRefused<UserRefusal>(err, r))
  if (refusal === 'stale')
    return new ConflictError('user.concurrent_update', 'The user changed meanwhile; retry')
  if (refusal === 'seat_cap') return seatCapError(tenant.plan)
  if (refusal === 'email_taken')
    return new ConflictError('user.email_taken', 'A user with this email already exists')
  return err
}

/** Applies a change computed from the current user; re-reads and re-applies if it changed meanwhile. */
async function applyChange(
  tenant: TenantContext,
  id: string,
  compute: (current: User) => UserChanges,
  at: string,
): Promise<User> {
  try {
    return await retryOnConflict(async () => {
      const before = await getUser(tenant, id)
      const after = applyUserChanges(before, compute(before), at)
      const effects = { events: userChangeEvents(before, after, at) }
      await saveUser(tenant, { before, after, seatCap: planById(tenant.plan).seatCap, effects })
      return after
    })
  } catch (err) {
    throw refusalError(err, tenant, ['stale', 'seat_cap', 'email_taken'])
  }
}

export async function updateUser(
  tenant: TenantContext,
  id: string,
  input: UpdateUserInput,
  actor: Actor,
  at = nowIso(),
): Promise<User> {
  const defs = input.custom_fields !== undefined ? await listCustomFieldDefs(tenant) : []
  const customFields =
    input.custom_fields !== undefined ? validateCustomFields(defs, input.custom_fields ?? {}) : undefined
  return applyChange(
    tenant,
    id,
    (current) => {
      // Decided on the role read here; the write holds only while the stored role is still this one.
      if (changeNeedsAdmin(current.role, input.role)) requireScope(actor, 'admin')
      if (current.erasedAt !== undefined)
        throw new RuleViolationError('user.erased', 'The user was erased; the account cannot change')
      const changes: UserChanges = {
        firstName: input.first_name,
        lastName: input.last_name,
        isActive: input.is_active,
        externalId: input.external_id,
        customFields,
        locale: input.locale,
      }
      if (input.role !== undefined) {
        const resolved = resolveRole(input.role, current.customRoleIds)
        changes.role = resolved.role
        changes.customRoleIds = resolved.customRoleIds
      }
      return changes
    },
    at,
  )
}

/** DELETE: a soft deactivation; the record and its history stay. Deactivating twice is a no-op. */
export async function deactivateUser(tenant: TenantContext, id: string, at = nowIso()): Promise<void> {
  await applyChange(tenant, id, () => ({ isActive: false }), at)
}

/** Replaces the person's identifying data for good (a no-op on an erased account); see erasure.ts. */
export async function eraseUserIdentity(tenant: TenantContext, id: string, at = nowIso()): Promise<User> {
  return applyChange(tenant, id, (current) => erasureOf(current, at), at)
}

/**
 * A sign-in: the last sign-in time, and the billing period it falls in (the first sign-in of a
 * period makes the person billable in it: the counters move in the same write).
 */
export async function recordLogin(tenant: Tenant, id: string, at = nowIso()): Promise<User> {
  const loginPeriod = periodStartAt(tenant.periodStart, at)
  return applyChange(
    tenant,
    id,
    (current) => {
      if (!current.isActive)
        throw new RuleViolationError('user.inactive', 'The user is deactivated and cannot sign in')
      return { lastLoginAt: at, loginPeriod }
    },
    nowIso(),
  )
}
