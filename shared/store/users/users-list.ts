/**
 * The users listing: each sort order is a GSI on the tenant's users, so a page is a Query that
 * reads offset + per_page index entries. `meta.total` comes from the tenant's counters item when
 * the filters allow (none, or one of role / is_active / user_type), otherwise from a count Query.
 * See docs/data-model.md.
 */
import type { StoredRole, UserType, User } from '../../domain/users/user.ts'
import { CONTENT_AUTHOR_ROLE } from '../../domain/users/user.ts'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import type { QueryCommandInput } from '@aws-sdk/lib-dynamodb'
import { getItem, queryCount, queryUpTo, type Item } from '../core/db.ts'
import { cond, projectionExpression, queryExpression, type Condition } from '../core/expression.ts'
import { keys } from '../core/keys.ts'
import { SKIP_FROM_OFFSET, skipQueryParams } from './user-positions.ts'
import { batchGetUsers, getUserCounters, toUser, usersBy, type UserCounters } from './users-store.ts'

export type UserSort = 'created_at' | 'last_name' | 'email'

export interface UserListQuery {
  readonly role?: StoredRole
  readonly isActive?: boolean
  readonly userType?: UserType
  /** The members of a group, resolved by the caller (static or dynamic). */
  readonly userIds?: ReadonlySet<string>
  readonly createdAfter?: string
  readonly createdBefore?: string
  readonly sortBy: UserSort
  readonly order: 'asc' | 'desc'
  readonly offset: number
  readonly limit: number
}

/** What a Query of the list is built from (the page and a group's members are applied apart). */
type ListFilters = Omit<UserListQuery, 'userIds' | 'offset' | 'limit'>

const indexFor = { created_at: usersBy.created, last_name: usersBy.lastName, email: usersBy.email } as const

/** The filters the index key does not apply, as one condition (undefined: none). */
function listFilter(q: ListFilters, createdInKey: boolean): Condition | undefined {
  const parts: Condition[] = []
  if (q.role === 'author') {
    // Pre-migration rows still read `author`; newer ones hold the Content Author role.
    parts.push(cond.or(cond.eq('role', 'author'), cond.contains('custom_role_ids', CONTENT_AUTHOR_ROLE.id)))
  } else if (q.role) {
    parts.push(cond.eq('role', q.role))
  }
  if (q.isActive !== undefined) parts.push(cond.eq('is_active', q.isActive))
  if (q.userType) parts.push(cond.eq('user_type', q.userType))
  if (!createdInKey && q.createdAfter) parts.push(cond.gt('created_at', q.createdAfter))
  if (!createdInKey && q.createdBefore) parts.push(cond.lt('created_at', q.createdBefore))
  return parts.length > 0 ? cond.and(...parts) : undefined
}

/**
 * The Query of one sort order with its filters (without Limit). On the created index a date range
 * narrows the key itself, since its sort key starts with created_at.
 */
export function usersQueryParams(
  tenant: TenantContext,
  q: ListFilters,
): Omit<QueryCommandInput, 'TableName'> {
  const index = indexFor[q.sortBy]
  const createdInKey = q.sortBy === 'created_at' && Boolean(q.createdAfter || q.createdBefore)
  const partition = cond.eq(index.pk, keys.usersIndexPk(tenant))
  const key = createdInKey
    ? cond.and(
        partition,
        cond.between(index.sk, q.createdAfter ? `${q.createdAfter}#~` : ' ', q.createdBefore ?? '~'),
      )
    : partition
  const filter = listFilter(q, createdInKey)
  return {
    IndexName: index.name,
    ...queryExpression({ key, ...(filter ? { filter } : {}) }),
    ScanIndexForward: q.order === 'asc',
  }
}

/** The counter that answers `total` for this filter set, if there is one. */
function counterTotal(q: UserListQuery, counters: UserCounters): number | undefined {
  if (q.createdAfter || q.createdBefore || q.userIds || q.role === 'author') return undefined
  if (q.role && q.userType) return undefined
  const c = counters.byAttribute
  const scoped = q.role ? `role_${q.role}` : q.userType ? `type_${q.userType}` : undefined
  if (q.isActive === undefined) return scoped ? (c[scoped] ?? 0) : counters.total
  const active = scoped ? (c[`active_${scoped}`] ?? 0) : counters.active
  const all = scoped ? (c[scoped] ?? 0) : counters.total
  return q.isActive ? active : all - active
}

/**
 * How many index entries to read per call: a filtered page reads enough entries, at the filter's
 * selectivity as the counters tell it, to fill the page in about one call.
 */
function readLimit(want: number, filtered: boolean, total: number, matching: number | undefined): number {
  if (!filtered) return Math.min(want, 1000)
  if (matching === undefined || matching === 0) return 1000
  return Math.min(1000, Math.ceil((want * Math.max(total, 1)) / matching) + 20)
}

export async function listUsers(
  tenant: TenantContext,
  q: UserListQuery,
): Promise<{ items: User[]; total: number }> {
  if (q.userIds) return listGroupUsers(tenant, q.userIds, q)
  const input = usersQueryParams(tenant, q)
  const counters = await getUserCounters(tenant)
  const known = counterTotal(q, counters)
  const filtered = input.FilterExpression !== undefined
  const deep = await deepPage(tenant, q, input, filtered, counters.total)
  if (deep) return { items: deep.map(toUser), total: known ?? counters.total }
  const want = q.offset + q.limit
  const page = await queryUpTo({ ...input, Limit: readLimit(want, filtered, counters.total, known) }, want)
  const total = known ?? (await queryCount(input))
  return { items: page.slice(q.offset).map(toUser), total }
}

/**
 * A deep page of the whole list by created_at (no filter, no date range): the offset is skipped on
 * the keys-only position index (user-positions.ts), then the page is read from gsi1 after the last
 * skipped user. Undefined when the page is not such a page, or when the position index holds fewer
 * entries than the offset while the counters count more users (users written before pos1 and not
 * yet backfilled, decision 0014): then the caller reads gsi1 whole.
 */
async function deepPage(
  tenant: TenantContext,
  q: UserListQuery,
  input: Omit<QueryCommandInput, 'TableName'>,
  filtered: boolean,
  total: number,
): Promise<Item[] | undefined> {
  if (q.sortBy !== 'created_at' || filtered || q.createdAfter || q.createdBefore) return undefined
  if (q.offset < SKIP_FROM_OFFSET) return undefined
  if (q.offset >= total) return []
  const skipped = await queryUpTo(skipQueryParams(tenant, q.order, q.offset), q.offset)
  const last = skipped.at(-1)
  if (skipped.length < q.offset || !last) return undefined
  const key = { pk: String(last.pk), sk: String(last.sk) }
  const user = await getItem(key, projectionExpression(['id', 'created_at']))
  if (!user) return undefined
  const index = usersBy.created
  const start = {
    ...key,
    [index.pk]: keys.usersIndexPk(tenant),
    [index.sk]: keys.usersByCreated(String(user.created_at), String(user.id)),
  }
  return queryUpTo({ ...input, ExclusiveStartKey: start, Limit: q.limit }, q.limit)
}

/** group_id: the members themselves, filtered and sorted here. */
async function listGroupUsers(
  tenant: TenantContext,
  userIds: ReadonlySet<string>,
  q: UserListQuery,
): Promise<{ items: User[]; total: number }> {
  const users = await batchGetUsers(tenant, [...userIds])
  const matching = users.filter((u) => matchesInMemory(u, q)).sort(comparator(q))
  return { items: matching.slice(q.offset, q.offset + q.limit), total: matching.length }
}

function matchesInMemory(u: User, q: UserListQuery): boolean {
  if (q.role === 'author' && !(u.role === 'author' || u.customRoleIds.includes(CONTENT_AUTHOR_ROLE.id)))
    return false
  if (q.role && q.role !== 'author' && u.role !== q.role) return false
  if (q.isActive !== undefined && u.isActive !== q.isActive) return false
  if (q.userType && u.userType !== q.userType) return false
  if (q.createdAfter && !(u.createdAt > q.createdAfter)) return false
  if (q.createdBefore && !(u.createdAt < q.createdBefore)) return false
  return true
}

function sortKey(u: User, by: UserSort): string {
  if (by === 'last_name') return keys.usersByLastName(u.lastName, u.id)
  if (by === 'email') return keys.usersByEmail(u.email, u.id)
  return keys.usersByCreated(u.createdAt, u.id)
}

function comparator(q: UserListQuery): (a: User, b: User) => number {
  const dir = q.order === 'asc' ? 1 : -1
  return (a, b) =>
    sortKey(a, q.sortBy) < sortKey(b, q.sortBy) ? -dir : sortKey(a, q.sortBy) > sortKey(b, q.sortBy) ? dir : 0
}
