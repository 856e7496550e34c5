/**
 * The users listing: each sort order is a GSI on the tenant's users, so a page is a Query that
 * reads offset + per_page index entries. `meta.total` comes from the tenant's counters item when
 * the filters allow (none, or one of role / is_active / user_type), otherwise from a count Query.
 * See docs/data-model.md.
 */
import type { StoredRole, UserType, User } from '../domain/users/user.ts'
import { CONTENT_AUTHOR_ROLE } from '../domain/users/user.ts'
import type { TenantContext } from '../domain/tenants/tenant.ts'
import { batchGet, queryCount, queryUpTo } from './db.ts'
import { keys } from './keys.ts'
import { getUserCounters, toUser, usersBy, type UserCounters } from './users-store.ts'

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

const indexFor = { created_at: usersBy.created, last_name: usersBy.lastName, email: usersBy.email } as const

interface Filter {
  readonly expression: string | undefined
  readonly names: Record<string, string>
  readonly values: Record<string, unknown>
}

function buildFilter(q: UserListQuery, createdInKey: boolean): Filter {
  const parts: string[] = []
  const names: Record<string, string> = {}
  const values: Record<string, unknown> = {}
  if (q.role === 'author') {
    // Pre-migration rows still read `author`; newer ones hold the Content Author role.
    parts.push('(#role = :role OR contains(custom_role_ids, :author))')
    names['#role'] = 'role'
    values[':role'] = 'author'
    values[':author'] = CONTENT_AUTHOR_ROLE.id
  } else if (q.role) {
    parts.push('#role = :role')
    names['#role'] = 'role'
    values[':role'] = q.role
  }
  if (q.isActive !== undefined) {
    parts.push('is_active = :active')
    values[':active'] = q.isActive
  }
  if (q.userType) {
    parts.push('user_type = :utype')
    values[':utype'] = q.userType
  }
  if (!createdInKey && q.createdAfter) {
    parts.push('created_at > :after')
    values[':after'] = q.createdAfter
  }
  if (!createdInKey && q.createdBefore) {
    parts.push('created_at < :before')
    values[':before'] = q.createdBefore
  }
  return { expression: parts.length ? parts.join(' AND ') : undefined, names, values }
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
  const index = indexFor[q.sortBy]
  const createdInKey = q.sortBy === 'created_at' && Boolean(q.createdAfter || q.createdBefore)
  const filter = buildFilter(q, createdInKey)
  const names: Record<string, string> = { '#pk': index.pk, ...filter.names }
  const values: Record<string, unknown> = { ':pk': keys.usersIndexPk(tenant), ...filter.values }
  let keyCondition = '#pk = :pk'
  if (createdInKey) {
    // The created index's sort key starts with created_at, so the range narrows the read itself.
    names['#sk'] = index.sk
    values[':lo'] = q.createdAfter ? `${q.createdAfter}#~` : ' '
    values[':hi'] = q.createdBefore ? q.createdBefore : '~'
    keyCondition += ' AND #sk BETWEEN :lo AND :hi'
  }
  const input = {
    IndexName: index.name,
    KeyConditionExpression: keyCondition,
    ...(filter.expression ? { FilterExpression: filter.expression } : {}),
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
    ScanIndexForward: q.order === 'asc',
  }
  const counters = await getUserCounters(tenant)
  const known = counterTotal(q, counters)
  const want = q.offset + q.limit
  const page = await queryUpTo(
    { ...input, Limit: readLimit(want, Boolean(filter.expression), counters.total, known) },
    want,
  )
  const total = known ?? (await queryCount(input))
  return { items: page.slice(q.offset).map(toUser), total }
}

/** group_id: the members themselves, filtered and sorted here. */
async function listGroupUsers(
  tenant: TenantContext,
  userIds: ReadonlySet<string>,
  q: UserListQuery,
): Promise<{ items: User[]; total: number }> {
  const users = (await batchGet([...userIds].map((id) => keys.user(tenant, id)))).map(toUser)
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
