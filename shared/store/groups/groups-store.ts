/**
 * Groups and memberships. A membership is a member item (group → user, for the members list)
 * plus the group id in the user's `group_ids` set (user → groups, read with the user), written
 * together with the group's member_count in one transaction, so count and members never drift.
 */
import * as v from 'valibot'
import { dynamicRuleAttributes, type Group } from '../../domain/groups/group.ts'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import { batchGet, getItem, queryAll, type Item } from '../core/db.ts'
import { decodeItem, withDefault } from '../core/decode.ts'
import { defineEntity, field, optionalField } from '../core/entity.ts'
import {
  cond,
  conditionExpression,
  projectionExpression,
  queryExpression,
  updateExpression,
} from '../core/expression.ts'
import { keys } from '../core/keys.ts'
import { WriteRefused } from '../core/store-errors.ts'
import { commit, type Step } from '../core/transaction.ts'
import { uniqueNames } from '../core/unique-names.ts'

/**
 * What a refused group write means: `name_taken` (another live group has the name, ignoring
 * case), `stale` (the group changed or was deleted since it was read), `not_found` (deleted
 * already), `group_exists`.
 */
export type GroupRefusal = 'name_taken' | 'stale' | 'not_found' | 'group_exists'

const groupEntity = defineEntity(
  'group',
  {
    id: field('id', v.string()),
    name: field('name', v.string()),
    description: optionalField('description', v.string()),
    memberCount: field('member_count', withDefault(v.number(), 0)),
    kind: field('kind', withDefault(v.picklist(['static', 'dynamic']), 'static')),
    rule: optionalField(
      'rule',
      v.object({ attribute: v.picklist(dynamicRuleAttributes), equals: v.string() }),
    ),
    createdAt: field('created_at', v.string()),
    updatedAt: field('updated_at', v.string()),
    deletedAt: optionalField('deleted_at', v.string()),
  },
  { key: (tenant: TenantContext, g) => keys.group(tenant, g.id) },
)

/** @returns undefined for a deleted group, which is hidden everywhere */
function liveGroupFromItem(item: Item): Group | undefined {
  const { deletedAt, ...group } = groupEntity.decode(item)
  return deletedAt === null ? group : undefined
}

const live = (items: Item[]): Group[] => items.flatMap((item) => liveGroupFromItem(item) ?? [])

export function getGroupParams(tenant: TenantContext, id: string) {
  return { Key: keys.group(tenant, id) }
}

export async function getGroup(tenant: TenantContext, id: string): Promise<Group | undefined> {
  const item = await getItem(getGroupParams(tenant, id).Key)
  return item ? liveGroupFromItem(item) : undefined
}

export async function getGroups(tenant: TenantContext, ids: readonly string[]): Promise<Group[]> {
  return live(await batchGet(ids.map((id) => keys.group(tenant, id))))
}

export function listGroupsParams(tenant: TenantContext) {
  return queryExpression({
    key: cond.and(cond.eq('pk', keys.tenantPartition(tenant)), cond.beginsWith('sk', keys.groupPrefix)),
  })
}

/** All live groups of the tenant (groups number in the hundreds, not millions: one Query). */
export async function listGroups(tenant: TenantContext): Promise<Group[]> {
  return live(await queryAll(listGroupsParams(tenant)))
}

/** Names are unique among live groups ignoring case. */
const groupNames = uniqueNames(keys.groupName, 'group_name_guard', 'group_id')

export function insertGroupSteps(tenant: TenantContext, group: Group): Step<GroupRefusal>[] {
  return [
    groupNames.claim(tenant, group.name, group.id),
    {
      item: {
        Put: {
          // Members join in their own writes, which move the count.
          Item: groupEntity.item(tenant, { ...group, memberCount: 0, deletedAt: null }),
          ...conditionExpression(cond.notExists()),
        },
      },
      refusal: 'group_exists',
    },
  ]
}

/** @throws WriteRefused<GroupRefusal>: `name_taken` */
export async function insertGroup(tenant: TenantContext, group: Group): Promise<void> {
  await commit(insertGroupSteps(tenant, group))
}

const liveGroup = cond.and(cond.exists(), cond.notExists('deleted_at'))

/**
 * A rename or new description, conditioned on the group being live and unchanged since `before`
 * was read; a new name (other than by case) takes its guard and frees the old one.
 */
export function saveGroupSteps(
  tenant: TenantContext,
  change: { readonly before: Group; readonly after: Group },
): Step<GroupRefusal>[] {
  const { before, after } = change
  const edited = groupEntity.changeOf(before, after, ['name', 'description'])
  const set = { ...edited.set, updated_at: after.updatedAt }
  return [
    ...groupNames.rename(tenant, before.name, after.name, after.id),
    {
      item: {
        Update: {
          Key: keys.group(tenant, before.id),
          ...updateExpression(
            { set, remove: edited.remove },
            cond.and(liveGroup, cond.eq('updated_at', before.updatedAt)),
          ),
        },
      },
      refusal: 'stale',
    },
  ]
}

/** @throws WriteRefused<GroupRefusal>: `name_taken`, `stale` */
export async function saveGroup(
  tenant: TenantContext,
  change: { readonly before: Group; readonly after: Group },
): Promise<void> {
  await commit(saveGroupSteps(tenant, change))
}

/** Marks the group deleted and frees its name, atomically; memberships are unlinked after. */
export function deleteGroupSteps(tenant: TenantContext, group: Group, now: string): Step<GroupRefusal>[] {
  return [
    {
      item: {
        Update: {
          Key: keys.group(tenant, group.id),
          ...updateExpression({ set: { deleted_at: now, updated_at: now } }, liveGroup),
        },
      },
      refusal: 'not_found',
    },
    groupNames.free(tenant, group.name),
  ]
}

/** @throws WriteRefused<GroupRefusal>: `not_found` when the group was deleted meanwhile */
export async function deleteGroup(tenant: TenantContext, group: Group, now: string): Promise<void> {
  await commit(deleteGroupSteps(tenant, group, now))
}

export interface Membership {
  readonly groupId: string
  readonly userId: string
}

export interface MemberEdge {
  readonly userId: string
  readonly addedAt: string
}

const memberEntity = defineEntity(
  'group_member',
  {
    groupId: field('group_id', v.string()),
    userId: field('user_id', v.string()),
    addedAt: field('added_at', v.string()),
  },
  { key: (tenant: TenantContext, m) => keys.groupMember(tenant, m.groupId, m.userId) },
)
const MemberPairItem = v.object({ user_id: v.string(), group_id: v.string() })

export function listMemberEdgesParams(tenant: TenantContext, groupId: string) {
  return queryExpression({
    key: cond.and(
      cond.eq('pk', keys.tenantPartition(tenant)),
      cond.beginsWith('sk', keys.groupMemberPrefix(groupId)),
    ),
  })
}

export async function listMemberEdges(tenant: TenantContext, groupId: string): Promise<MemberEdge[]> {
  const items = await queryAll(listMemberEdgesParams(tenant, groupId))
  return items.map((item) => {
    const { userId, addedAt } = memberEntity.decode(item)
    return { userId, addedAt }
  })
}

export function existingMembershipsParams(tenant: TenantContext, pairs: readonly Membership[]) {
  return {
    Keys: pairs.map((p) => keys.groupMember(tenant, p.groupId, p.userId)),
    ...projectionExpression(['user_id', 'group_id']),
  }
}

/** @returns `groupId/userId` of each pair that is a membership */
export async function existingMemberships(
  tenant: TenantContext,
  pairs: readonly Membership[],
): Promise<Set<string>> {
  const p = existingMembershipsParams(tenant, pairs)
  const items = await batchGet(p.Keys, p.ProjectionExpression, p.ExpressionAttributeNames)
  return new Set(
    items.map((item) => {
      const i = decodeItem('group member', MemberPairItem, item)
      return `${i.group_id}/${i.user_id}`
    }),
  )
}

/** What a failed condition in a membership transaction rules out: one pair, a user, or a group. */
export type MembershipRefusal =
  | { readonly kind: 'member'; readonly pair: Membership }
  | { readonly kind: 'user'; readonly userId: string }
  | { readonly kind: 'group'; readonly groupId: string }

export interface MembershipOptions {
  /** Only active users may join (the member-add route); a user being created may be inactive. */
  readonly requireActiveUser: boolean
  /** false when the group itself is being deleted: its count no longer matters. */
  readonly countOnGroup: boolean
}

/** Each item may appear once per transaction: with one group and many users, 49 members fill it. */
const PAIRS_PER_TRANSACTION = 49

/**
 * One transaction adding (sign 1) or removing (sign -1) the pairs: each pair's member item, each
 * user's `group_ids`, each group's count; each condition refuses what it rules out.
 */
export function membershipSteps(
  tenant: TenantContext,
  pairs: readonly Membership[],
  sign: 1 | -1,
  options: MembershipOptions,
  now: string,
): Step<MembershipRefusal>[] {
  const members = pairs.map((pair): Step<MembershipRefusal> => {
    const member = { ...pair, addedAt: now }
    const item =
      sign === 1
        ? { Put: { Item: memberEntity.item(tenant, member), ...conditionExpression(cond.notExists()) } }
        : { Delete: { Key: memberEntity.key(tenant, member), ...conditionExpression(cond.exists()) } }
    return { item, refusal: { kind: 'member', pair } }
  })
  const users = [...new Set(pairs.map((p) => p.userId))].map((userId): Step<MembershipRefusal> => {
    const groupIds = new Set(pairs.filter((p) => p.userId === userId).map((p) => p.groupId))
    const update = sign === 1 ? { add: { group_ids: groupIds } } : { delete: { group_ids: groupIds } }
    const mayJoin =
      sign === 1 && options.requireActiveUser
        ? cond.and(cond.exists(), cond.eq('is_active', true))
        : cond.exists()
    return {
      item: { Update: { Key: keys.user(tenant, userId), ...updateExpression(update, mayJoin) } },
      refusal: { kind: 'user', userId },
    }
  })
  const groups = options.countOnGroup
    ? [...new Set(pairs.map((p) => p.groupId))].map((groupId): Step<MembershipRefusal> => {
        const n = pairs.filter((p) => p.groupId === groupId).length
        const staticLiveGroup = cond.and(liveGroup, cond.eq('kind', 'static'))
        return {
          item: {
            Update: {
              Key: keys.group(tenant, groupId),
              ...updateExpression({ add: { member_count: sign * n } }, staticLiveGroup),
            },
          },
          refusal: { kind: 'group', groupId },
        }
      })
    : []
  return [...members, ...users, ...groups]
}

const ruledOut = (refusals: readonly MembershipRefusal[]) => (p: Membership) =>
  refusals.some(
    (r) =>
      (r.kind === 'member' && r.pair === p) ||
      (r.kind === 'user' && r.userId === p.userId) ||
      (r.kind === 'group' && r.groupId === p.groupId),
  )

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
    // Each refusal drops at least one pair, so a chunk settles within its size.
    while (chunk.length > 0) {
      try {
        await commit(membershipSteps(tenant, chunk, sign, options, now))
        changed.push(...chunk)
        break
      } catch (err) {
        if (!(err instanceof WriteRefused)) throw err
        const rest = chunk.filter((p) => !ruledOut((err as WriteRefused<MembershipRefusal>).refusals)(p))
        if (rest.length === chunk.length) throw err
        chunk = rest
      }
    }
  }
  return changed
}
