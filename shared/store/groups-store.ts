/**
 * Groups and memberships. A membership is a member item (group → user, for the members list)
 * plus the group id in the user's `group_ids` set (user → groups, read with the user), written
 * together with the group's member_count in one transaction, so count and members never drift.
 */
import type { DynamicRule, Group } from '../domain/groups/group.ts'
import type { TenantContext } from '../domain/tenants/tenant.ts'
import {
  batchGet,
  getItem,
  queryAll,
  transact,
  TransactionConditionFailed,
  type Item,
  type TransactItem,
} from './db.ts'
import { keys } from './keys.ts'

function toGroup(item: Item): Group {
  return {
    id: item.id as string,
    name: item.name as string,
    description: (item.description as string | null | undefined) ?? null,
    memberCount: (item.member_count as number | undefined) ?? 0,
    kind: (item.kind as Group['kind'] | undefined) ?? 'static',
    rule: (item.rule as DynamicRule | null | undefined) ?? null,
    createdAt: item.created_at as string,
    updatedAt: item.updated_at as string,
  }
}

const isLive = (item: Item) => item.deleted_at === undefined || item.deleted_at === null

export async function getGroup(tenant: TenantContext, id: string): Promise<Group | undefined> {
  const item = await getItem(keys.group(tenant, id))
  return item && isLive(item) ? toGroup(item) : undefined
}

export async function getGroups(tenant: TenantContext, ids: readonly string[]): Promise<Group[]> {
  const items = await batchGet(ids.map((id) => keys.group(tenant, id)))
  return items.filter(isLive).map(toGroup)
}

/** All live groups of the tenant (groups number in the hundreds, not millions: one Query). */
export async function listGroups(tenant: TenantContext): Promise<Group[]> {
  const items = await queryAll({
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :sk)',
    ExpressionAttributeValues: { ':pk': keys.tenantPartition(tenant), ':sk': keys.groupPrefix },
  })
  return items.filter(isLive).map(toGroup)
}

export class GroupNameTakenError extends Error {}
export class StaleGroupError extends Error {}

const nameGuard = (tenant: TenantContext, name: string, groupId: string): TransactItem => ({
  Put: {
    Item: { ...keys.groupName(tenant, name.toLowerCase()), type: 'group_name_guard', group_id: groupId },
    ConditionExpression: 'attribute_not_exists(pk)',
  },
})

export async function insertGroup(tenant: TenantContext, group: Group): Promise<void> {
  try {
    await transact([
      nameGuard(tenant, group.name, group.id),
      {
        Put: {
          Item: {
            ...keys.group(tenant, group.id),
            type: 'group',
            id: group.id,
            name: group.name,
            description: group.description,
            member_count: 0,
            kind: group.kind,
            rule: group.rule,
            created_at: group.createdAt,
            updated_at: group.updatedAt,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
    ])
  } catch (err) {
    if (err instanceof TransactionConditionFailed && err.failedAt(0)) throw new GroupNameTakenError()
    throw err
  }
}

export async function updateGroup(
  tenant: TenantContext,
  current: Group,
  changes: { name?: string; description?: string | null },
  now: string,
): Promise<Group> {
  const renamed = changes.name !== undefined && changes.name.toLowerCase() !== current.name.toLowerCase()
  const sets = ['updated_at = :now']
  const values: Record<string, unknown> = { ':now': now, ':expected': current.updatedAt }
  if (changes.name !== undefined) {
    sets.push('#name = :name')
    values[':name'] = changes.name
  }
  if (changes.description !== undefined) {
    sets.push('description = :description')
    values[':description'] = changes.description
  }
  try {
    await transact([
      ...(renamed && changes.name !== undefined
        ? [
            nameGuard(tenant, changes.name, current.id),
            { Delete: { Key: keys.groupName(tenant, current.name.toLowerCase()) } },
          ]
        : []),
      {
        Update: {
          Key: keys.group(tenant, current.id),
          UpdateExpression: `SET ${sets.join(', ')}`,
          ConditionExpression:
            'attribute_exists(pk) AND attribute_not_exists(deleted_at) AND updated_at = :expected',
          ...(changes.name !== undefined ? { ExpressionAttributeNames: { '#name': 'name' } } : {}),
          ExpressionAttributeValues: values,
        },
      },
    ])
  } catch (err) {
    if (err instanceof TransactionConditionFailed) {
      if (renamed && err.failedAt(0)) throw new GroupNameTakenError()
      throw new StaleGroupError()
    }
    throw err
  }
  return {
    ...current,
    ...(changes.name !== undefined ? { name: changes.name } : {}),
    ...(changes.description !== undefined ? { description: changes.description } : {}),
    updatedAt: now,
  }
}

/** Marks the group deleted and frees its name, atomically; memberships are unlinked after. */
export async function softDeleteGroup(tenant: TenantContext, current: Group, now: string): Promise<boolean> {
  try {
    await transact([
      {
        Update: {
          Key: keys.group(tenant, current.id),
          UpdateExpression: 'SET deleted_at = :now, updated_at = :now',
          ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(deleted_at)',
          ExpressionAttributeValues: { ':now': now },
        },
      },
      { Delete: { Key: keys.groupName(tenant, current.name.toLowerCase()) } },
    ])
    return true
  } catch (err) {
    if (err instanceof TransactionConditionFailed) return false
    throw err
  }
}

export interface Membership {
  readonly groupId: string
  readonly userId: string
}

export interface MemberEdge {
  readonly userId: string
  readonly addedAt: string
}

export async function listMemberEdges(tenant: TenantContext, groupId: string): Promise<MemberEdge[]> {
  const items = await queryAll({
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :sk)',
    ExpressionAttributeValues: {
      ':pk': keys.tenantPartition(tenant),
      ':sk': keys.groupMemberPrefix(groupId),
    },
  })
  return items.map((i) => ({ userId: i.user_id as string, addedAt: i.added_at as string }))
}

export async function existingMemberships(
  tenant: TenantContext,
  pairs: readonly Membership[],
): Promise<Set<string>> {
  const items = await batchGet(
    pairs.map((p) => keys.groupMember(tenant, p.groupId, p.userId)),
    'user_id, group_id',
  )
  return new Set(items.map((i) => `${i.group_id as string}/${i.user_id as string}`))
}

type Slot =
  { kind: 'member'; pair: Membership } | { kind: 'user'; userId: string } | { kind: 'group'; groupId: string }

export interface MembershipOptions {
  /** Only active users may join (the member-add route); a user being created may be inactive. */
  readonly requireActiveUser: boolean
  /** false when the group itself is being deleted: its count no longer matters. */
  readonly countOnGroup: boolean
}

/** Each item may appear once per transaction: with one group and many users, 49 members fill it. */
const PAIRS_PER_TRANSACTION = 49

/**
 * Adds (sign 1) or removes (sign -1) memberships in transactions of at most 100 items. A pair whose
 * condition fails (already a member, not a member, user inactive) is dropped and the rest retried,
 * so concurrent edits can never double-count. @returns the pairs that changed.
 */
export async function changeMemberships(
  tenant: TenantContext,
  pairs: readonly Membership[],
  sign: 1 | -1,
  options: MembershipOptions,
  now: string,
): Promise<Membership[]> {
  const changed: Membership[] = []
  for (let i = 0; i < pairs.length; i += PAIRS_PER_TRANSACTION) {
    let chunk = pairs.slice(i, i + PAIRS_PER_TRANSACTION)
    for (let attempt = 0; chunk.length > 0 && attempt <= PAIRS_PER_TRANSACTION; attempt++) {
      const { items, slots } = membershipTransaction(tenant, chunk, sign, options, now)
      try {
        await transact(items)
        changed.push(...chunk)
        break
      } catch (err) {
        if (!(err instanceof TransactionConditionFailed)) throw err
        const failed = slots.filter((_, idx) => err.failedAt(idx))
        chunk = chunk.filter(
          (p) =>
            !failed.some(
              (s) =>
                (s.kind === 'member' && s.pair === p) ||
                (s.kind === 'user' && s.userId === p.userId) ||
                (s.kind === 'group' && s.groupId === p.groupId),
            ),
        )
      }
    }
  }
  return changed
}

function membershipTransaction(
  tenant: TenantContext,
  chunk: readonly Membership[],
  sign: 1 | -1,
  options: MembershipOptions,
  now: string,
): { items: TransactItem[]; slots: Slot[] } {
  const items: TransactItem[] = []
  const slots: Slot[] = []
  for (const pair of chunk) {
    const key = keys.groupMember(tenant, pair.groupId, pair.userId)
    items.push(
      sign === 1
        ? {
            Put: {
              Item: {
                ...key,
                type: 'group_member',
                group_id: pair.groupId,
                user_id: pair.userId,
                added_at: now,
              },
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          }
        : { Delete: { Key: key, ConditionExpression: 'attribute_exists(pk)' } },
    )
    slots.push({ kind: 'member', pair })
  }
  for (const userId of new Set(chunk.map((p) => p.userId))) {
    const groupIds = new Set(chunk.filter((p) => p.userId === userId).map((p) => p.groupId))
    const activeGuard = sign === 1 && options.requireActiveUser
    items.push({
      Update: {
        Key: keys.user(tenant, userId),
        UpdateExpression: `${sign === 1 ? 'ADD' : 'DELETE'} group_ids :g`,
        ConditionExpression: activeGuard
          ? 'attribute_exists(pk) AND is_active = :true'
          : 'attribute_exists(pk)',
        ExpressionAttributeValues: activeGuard ? { ':g': groupIds, ':true': true } : { ':g': groupIds },
      },
    })
    slots.push({ kind: 'user', userId })
  }
  if (options.countOnGroup) {
    for (const groupId of new Set(chunk.map((p) => p.groupId))) {
      const n = chunk.filter((p) => p.groupId === groupId).length
      items.push({
        Update: {
          Key: keys.group(tenant, groupId),
          UpdateExpression: 'ADD member_count :n',
          ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(deleted_at) AND kind = :static',
          ExpressionAttributeValues: { ':n': sign * n, ':static': 'static' },
        },
      })
      slots.push({ kind: 'group', groupId })
    }
  }
  return { items, slots }
}
