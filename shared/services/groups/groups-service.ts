/** Groups: static groups are edited over the API; dynamic groups (CLI) derive members from a rule. */
import { randomUUID } from 'node:crypto'
import { ConflictError, NotFoundError, RuleViolationError, ValidationError } from '../../domain/errors.ts'
import { isValidRule, matchesRule, type DynamicRule, type Group } from '../../domain/groups/group.ts'
import type { CreateGroupInput, UpdateGroupInput } from '../../domain/groups/group.ts'
import { byKey, byName, orderedBy, pageOf } from '../../domain/lists.ts'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import type { User } from '../../domain/users/user.ts'
import {
  changeMemberships,
  deleteGroup as deleteStoredGroup,
  existingMemberships,
  getGroup as getStoredGroup,
  insertGroup,
  listGroups as listStoredGroups,
  listMemberEdges,
  saveGroup,
} from '../../store/groups/groups-store.ts'
import { isStale, retryOnConflict } from '../../store/core/optimistic.ts'
import { WriteRefused } from '../../store/core/store-errors.ts'
import { batchGetUsers, listAllUsers } from '../../store/users/users-store.ts'

const nowIso = () => new Date().toISOString()

async function withDynamicCount(tenant: TenantContext, group: Group): Promise<Group> {
  if (group.kind !== 'dynamic' || !group.rule) return group
  const rule = group.rule
  const members = (await listAllUsers(tenant)).filter((u) => matchesRule(rule, u))
  return { ...group, memberCount: members.length }
}

export async function getGroup(tenant: TenantContext, id: string): Promise<Group> {
  const group = await getStoredGroup(tenant, id)
  if (!group) throw new NotFoundError('group')
  return withDynamicCount(tenant, group)
}

export interface GroupListQuery {
  readonly search?: string
  readonly sortBy: 'name' | 'created_at'
  readonly order: 'asc' | 'desc'
  readonly offset: number
  readonly limit: number
}

export async function listGroups(
  tenant: TenantContext,
  q: GroupListQuery,
): Promise<{ items: Group[]; total: number }> {
  const needle = q.search?.toLowerCase()
  const all = (await listStoredGroups(tenant))
    .filter((g) => !needle || g.name.toLowerCase().includes(needle))
    .sort(q.sortBy === 'name' ? orderedBy(byName, q.order) : byKey((g) => `${g.createdAt}#${g.id}`, q.order))
  const page = pageOf(all, q)
  return { ...page, items: await Promise.all(page.items.map((g) => withDynamicCount(tenant, g))) }
}

const nameTaken = () => new ConflictError('group.name_taken', 'A group with this name already exists')

const refused = (err: unknown, refusal: string) => err instanceof WriteRefused && err.has(refusal)

export async function createGroup(
  tenant: TenantContext,
  input: CreateGroupInput,
  rule: DynamicRule | null = null,
  at = nowIso(),
): Promise<Group> {
  if (rule && !isValidRule(rule))
    throw new ValidationError('rule', `rule: ${rule.equals} is not a valid ${rule.attribute}`)
  const group: Group = {
    id: randomUUID(),
    name: input.name,
    description: input.description ?? null,
    memberCount: 0,
    kind: rule ? 'dynamic' : 'static',
    rule,
    createdAt: at,
    updatedAt: at,
  }
  try {
    await insertGroup(tenant, group)
  } catch (err) {
    if (refused(err, 'name_taken')) throw nameTaken()
    throw err
  }
  return withDynamicCount(tenant, group)
}

export async function updateGroup(
  tenant: TenantContext,
  id: string,
  input: UpdateGroupInput,
  at = nowIso(),
): Promise<Group> {
  try {
    return await retryOnConflict(
      async () => {
        const before = await getGroup(tenant, id)
        const after: Group = {
          ...before,
          name: input.name ?? before.name,
          description: input.description !== undefined ? input.description : before.description,
          updatedAt: at,
        }
        try {
          await saveGroup(tenant, { before, after })
        } catch (err) {
          // A taken name is the answer even when the group also changed meanwhile.
          if (refused(err, 'name_taken')) throw nameTaken()
          throw err
        }
        return after
      },
      { tries: 3 },
    )
  } catch (err) {
    if (isStale(err)) throw new ConflictError('group.concurrent_update', 'The group changed meanwhile; retry')
    throw err
  }
}

/** Soft delete: hidden everywhere, name reusable; members stay users and lose the association. */
export async function deleteGroup(tenant: TenantContext, id: string, at = nowIso()): Promise<void> {
  const group = await getGroup(tenant, id)
  try {
    await deleteStoredGroup(tenant, group, at)
  } catch (err) {
    if (refused(err, 'not_found')) throw new NotFoundError('group')
    throw err
  }
  const edges = await listMemberEdges(tenant, id)
  await changeMemberships(
    tenant,
    edges.map((e) => ({ groupId: id, userId: e.userId })),
    -1,
    { requireActiveUser: false, countOnGroup: false },
    at,
  )
}

function requireStatic(group: Group): void {
  if (group.kind === 'dynamic') {
    throw new RuleViolationError(
      'group.dynamic',
      'This is a dynamic group: its members follow its rule and cannot be edited',
    )
  }
}

/** Ids already in the group, or not an active user of the tenant, are skipped silently. */
export async function addMembers(
  tenant: TenantContext,
  id: string,
  userIds: readonly string[],
  at = nowIso(),
): Promise<{ added: number; skipped: number }> {
  const group = await getGroup(tenant, id)
  requireStatic(group)
  const unique = [...new Set(userIds)]
  const users = await batchGetUsers(tenant, unique)
  const active = new Set(users.filter((u) => u.isActive).map((u) => u.id))
  const already = await existingMemberships(
    tenant,
    unique.map((userId) => ({ groupId: id, userId })),
  )
  const candidates = unique.filter((u) => active.has(u) && !already.has(`${id}/${u}`))
  const added = await changeMemberships(
    tenant,
    candidates.map((userId) => ({ groupId: id, userId })),
    1,
    { requireActiveUser: true, countOnGroup: true },
    at,
  )
  if (candidates.length > 0 && added.length === 0 && !(await getStoredGroup(tenant, id)))
    throw new NotFoundError('group')
  return { added: added.length, skipped: userIds.length - added.length }
}

export async function removeMembers(
  tenant: TenantContext,
  id: string,
  userIds: readonly string[],
  at = nowIso(),
): Promise<{ removed: number; skipped: number }> {
  const group = await getGroup(tenant, id)
  requireStatic(group)
  const unique = [...new Set(userIds)]
  const present = await existingMemberships(
    tenant,
    unique.map((userId) => ({ groupId: id, userId })),
  )
  const removed = await changeMemberships(
    tenant,
    unique.filter((u) => present.has(`${id}/${u}`)).map((userId) => ({ groupId: id, userId })),
    -1,
    { requireActiveUser: false, countOnGroup: true },
    at,
  )
  return { removed: removed.length, skipped: userIds.length - removed.length }
}

export interface Member {
  readonly user: User
  readonly addedAt: string
}

export async function listMembers(
  tenant: TenantContext,
  id: string,
  q: { search?: string; offset: number; limit: number },
): Promise<{ items: Member[]; total: number }> {
  const group = await getGroup(tenant, id)
  let members: Member[]
  if (group.kind === 'dynamic' && group.rule) {
    const rule = group.rule
    members = (await listAllUsers(tenant))
      .filter((u) => matchesRule(rule, u))
      .map((user) => ({ user, addedAt: user.createdAt }))
  } else {
    const edges = await listMemberEdges(tenant, id)
    const users = new Map(
      (
        await batchGetUsers(
          tenant,
          edges.map((e) => e.userId),
        )
      ).map((u) => [u.id, u]),
    )
    members = edges.flatMap((e) => {
      const user = users.get(e.userId)
      return user ? [{ user, addedAt: e.addedAt }] : []
    })
  }
  const needle = q.search?.toLowerCase()
  const matching = members
    .filter(
      (m) =>
        !needle ||
        `${m.user.firstName} ${m.user.lastName}`.toLowerCase().includes(needle) ||
        m.user.email.toLowerCase().includes(needle),
    )
    .sort(byKey((m) => `${m.addedAt}#${m.user.id}`))
  return pageOf(matching, q)
}

/** The user ids of a group's members (a dynamic group's from its rule); undefined for no group. */
export async function memberUserIds(
  tenant: TenantContext,
  groupId: string,
): Promise<Set<string> | undefined> {
  const group = await getStoredGroup(tenant, groupId)
  if (!group) return undefined
  if (group.kind === 'dynamic' && group.rule) {
    const rule = group.rule
    return new Set((await listAllUsers(tenant)).filter((u) => matchesRule(rule, u)).map((u) => u.id))
  }
  return new Set((await listMemberEdges(tenant, groupId)).map((e) => e.userId))
}
