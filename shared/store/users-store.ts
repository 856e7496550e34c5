/**
 * Users in the tenant's partition. Invariants live in the write itself: e-mail uniqueness is a
 * guard item written with the user, the seat cap is a condition on the tenant's counters item, and
 * is_active transitions are conditional on the state they start from.
 */
import type { CustomFieldDef, CustomFieldType } from '../domain/users/custom-fields.ts'
import type { Locale, StoredRole, User, UserType } from '../domain/users/user.ts'
import type { TenantContext } from '../domain/tenants/tenant.ts'
import {
  batchGet,
  batchPut,
  getItem,
  putItem,
  query,
  queryAll,
  transact,
  TransactionConditionFailed,
  type Item,
  type TransactItem,
  updateItem,
} from './db.ts'
import { indexes, keys } from './keys.ts'

/** What the tenant-wide indexes mean for users: the three sort orders of the users list. */
export const usersBy = { created: indexes.gsi1, lastName: indexes.gsi2, email: indexes.gsi3 } as const

export function toUser(item: Item): User {
  const groupIds = item.group_ids instanceof Set ? [...(item.group_ids as Set<string>)] : []
  return {
    id: item.id as string,
    email: item.email as string,
    firstName: item.first_name as string,
    lastName: item.last_name as string,
    role: item.role as StoredRole,
    customRoleIds: (item.custom_role_ids as string[] | undefined) ?? [],
    isActive: item.is_active as boolean,
    userType: item.user_type as UserType,
    externalId: (item.external_id as string | null | undefined) ?? null,
    customFields: (item.custom_fields as Record<string, unknown> | undefined) ?? {},
    locale: (item.locale as Locale | undefined) ?? 'en',
    groupIds: groupIds.sort(),
    lastLoginAt: (item.last_login_at as string | null | undefined) ?? null,
    createdAt: item.created_at as string,
    updatedAt: item.updated_at as string,
    ...(typeof item.erased_at === 'string' ? { erasedAt: item.erased_at } : {}),
  }
}

function userItem(tenant: TenantContext, user: User): Item {
  const indexPk = keys.usersIndexPk(tenant)
  return {
    ...keys.user(tenant, user.id),
    type: 'user',
    id: user.id,
    email: user.email,
    first_name: user.firstName,
    last_name: user.lastName,
    role: user.role,
    custom_role_ids: [...user.customRoleIds],
    is_active: user.isActive,
    user_type: user.userType,
    external_id: user.externalId,
    custom_fields: user.customFields,
    locale: user.locale,
    last_login_at: user.lastLoginAt,
    created_at: user.createdAt,
    updated_at: user.updatedAt,
    [usersBy.created.pk]: indexPk,
    [usersBy.created.sk]: keys.usersByCreated(user.createdAt, user.id),
    [usersBy.lastName.pk]: indexPk,
    [usersBy.lastName.sk]: keys.usersByLastName(user.lastName, user.id),
    [usersBy.email.pk]: indexPk,
    [usersBy.email.sk]: keys.usersByEmail(user.email, user.id),
  }
}

export async function getUser(
  tenant: TenantContext,
  id: string,
  { consistent = false } = {},
): Promise<User | undefined> {
  const item = await getItem(keys.user(tenant, id), { ConsistentRead: consistent })
  return item ? toUser(item) : undefined
}

export class EmailTakenError extends Error {}
export class SeatCapReachedError extends Error {}
export class StaleUserError extends Error {}

/**
 * What one user adds to the tenant's counters: filtered totals (one filter, or is_active with role
 * or user_type) are read from these instead of counting the users.
 */
export function counterContributions(
  u: Pick<User, 'role' | 'userType' | 'isActive'>,
): Record<string, number> {
  const active = u.isActive ? 1 : 0
  return {
    users_total: 1,
    users_active: active,
    [`role_${u.role}`]: 1,
    [`type_${u.userType}`]: 1,
    [`active_role_${u.role}`]: active,
    [`active_type_${u.userType}`]: active,
  }
}

function counterDiff(before: Record<string, number>, after: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {}
  for (const k of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const d = (after[k] ?? 0) - (before[k] ?? 0)
    if (d !== 0) out[k] = d
  }
  return out
}

function counterUpdate(
  tenant: TenantContext,
  deltas: Record<string, number>,
  seatCap: number | null,
  takesSeat: boolean,
): TransactItem {
  const names: Record<string, string> = {}
  const values: Record<string, number> = {}
  const adds = Object.entries(deltas)
    .filter(([, d]) => d !== 0)
    .map(([attr, d], i) => {
      names[`#c${i}`] = attr
      values[`:c${i}`] = d
      return `#c${i} :c${i}`
    })
  const guard = takesSeat && seatCap !== null
  if (guard) values[':cap'] = seatCap
  return {
    Update: {
      Key: keys.counters(tenant),
      UpdateExpression: `ADD ${adds.join(', ')}`,
      ...(guard ? { ConditionExpression: 'attribute_not_exists(users_active) OR users_active < :cap' } : {}),
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    },
  }
}

/** A new tenant's first user: its items and its share of the counters, for the tenant's own transaction. */
export function firstUserItems(
  tenant: TenantContext,
  user: User,
): { items: Item[]; counters: Record<string, number> } {
  return {
    items: [
      userItem(tenant, user),
      { ...keys.userEmail(tenant, user.email), type: 'email_guard', user_id: user.id },
    ],
    counters: counterContributions(user),
  }
}

/**
 * Inserts the user with its e-mail guard, counters and events in one transaction.
 * @throws EmailTakenError, SeatCapReachedError
 */
export async function insertUser(
  tenant: TenantContext,
  user: User,
  seatCap: number | null,
  extra: TransactItem[],
): Promise<void> {
  const deltas = counterContributions(user)
  try {
    await transact([
      {
        Put: {
          Item: { ...keys.userEmail(tenant, user.email), type: 'email_guard', user_id: user.id },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      { Put: { Item: userItem(tenant, user), ConditionExpression: 'attribute_not_exists(pk)' } },
      counterUpdate(tenant, deltas, seatCap, user.isActive),
      ...extra,
    ])
  } catch (err) {
    if (err instanceof TransactionConditionFailed) {
      if (err.failedAt(0)) throw new EmailTakenError()
      if (err.failedAt(2)) throw new SeatCapReachedError()
    }
    throw err
  }
}

export interface UserChanges {
  firstName?: string
  lastName?: string
  role?: StoredRole
  customRoleIds?: readonly string[]
  isActive?: boolean
  externalId?: string | null
  customFields?: Record<string, unknown>
  locale?: Locale
  lastLoginAt?: string
  /** Only erasure changes the e-mail: the guard item moves with it in the same transaction. */
  email?: string
  erasedAt?: string
}

const changeAttributes: [keyof UserChanges, string][] = [
  ['firstName', 'first_name'],
  ['lastName', 'last_name'],
  ['role', 'role'],
  ['customRoleIds', 'custom_role_ids'],
  ['isActive', 'is_active'],
  ['externalId', 'external_id'],
  ['customFields', 'custom_fields'],
  ['locale', 'locale'],
  ['lastLoginAt', 'last_login_at'],
  ['email', 'email'],
  ['erasedAt', 'erased_at'],
]

/**
 * Applies the changes if the user still is as `current` says (its updated_at and role), keeping the
 * counters and the seat cap true in the same transaction.
 * @throws StaleUserError when the user changed meanwhile; SeatCapReachedError on reactivation past the cap
 */
export async function updateUser(
  tenant: TenantContext,
  current: User,
  changes: UserChanges,
  now: string,
  seatCap: number | null,
  extra: TransactItem[],
): Promise<User> {
  const names: Record<string, string> = { '#updated_at': 'updated_at', '#role': 'role' }
  const values: Record<string, unknown> = {
    ':now': now,
    ':expected': current.updatedAt,
    ':expected_role': current.role,
  }
  const sets = ['#updated_at = :now']
  for (const [field, attr] of changeAttributes) {
    const value = changes[field]
    if (value === undefined) continue
    names[`#${attr}`] = attr
    values[`:${attr}`] = Array.isArray(value) ? [...value] : value
    sets.push(`#${attr} = :${attr}`)
  }
  if (changes.lastName !== undefined) {
    names['#gsi2sk'] = usersBy.lastName.sk
    values[':gsi2sk'] = keys.usersByLastName(changes.lastName, current.id)
    sets.push('#gsi2sk = :gsi2sk')
  }
  const emailMove = changes.email !== undefined && changes.email !== current.email
  if (changes.email !== undefined) {
    names['#gsi3sk'] = usersBy.email.sk
    values[':gsi3sk'] = keys.usersByEmail(changes.email, current.id)
    sets.push('#gsi3sk = :gsi3sk')
  }
  const activating = changes.isActive === true && !current.isActive
  const deltas = counterDiff(
    counterContributions(current),
    counterContributions({
      ...current,
      role: changes.role ?? current.role,
      isActive: changes.isActive ?? current.isActive,
    }),
  )
  const touchesCounters = Object.values(deltas).some((d) => d !== 0)
  const items: TransactItem[] = [
    {
      Update: {
        Key: keys.user(tenant, current.id),
        UpdateExpression: `SET ${sets.join(', ')}`,
        // The role too: who may make a change is decided on it, and updated_at has only ms resolution.
        ConditionExpression: 'attribute_exists(pk) AND #updated_at = :expected AND #role = :expected_role',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      },
    },
    ...(touchesCounters ? [counterUpdate(tenant, deltas, seatCap, activating)] : []),
    ...(emailMove && changes.email !== undefined ? emailGuardMove(tenant, current, changes.email) : []),
    ...extra,
  ]
  try {
    await transact(items)
  } catch (err) {
    if (err instanceof TransactionConditionFailed) {
      if (err.failedAt(0)) throw new StaleUserError()
      if (touchesCounters && err.failedAt(1)) throw new SeatCapReachedError()
      const guardAt = items.length - extra.length - 2
      if (emailMove && (err.failedAt(guardAt) || err.failedAt(guardAt + 1))) throw new EmailTakenError()
    }
    throw err
  }
  const next: User = {
    ...current,
    ...Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined)),
    updatedAt: now,
  }
  return next
}

/** Frees the old address for reuse and claims the new one, only if the old guard is this user's. */
function emailGuardMove(tenant: TenantContext, current: User, email: string): TransactItem[] {
  return [
    {
      Delete: {
        Key: keys.userEmail(tenant, current.email),
        // A guard already gone is fine to "delete"; another user's is never touched.
        ConditionExpression: 'attribute_not_exists(pk) OR user_id = :id',
        ExpressionAttributeValues: { ':id': current.id },
      },
    },
    {
      Put: {
        Item: { ...keys.userEmail(tenant, email), type: 'email_guard', user_id: current.id },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
  ]
}

export interface UserCounters {
  readonly total: number
  readonly active: number
  readonly byAttribute: Readonly<Record<string, number>>
}

export async function getUserCounters(tenant: TenantContext): Promise<UserCounters> {
  const item = (await getItem(keys.counters(tenant))) ?? {}
  return {
    total: (item.users_total as number | undefined) ?? 0,
    active: (item.users_active as number | undefined) ?? 0,
    byAttribute: item as Record<string, number>,
  }
}

export async function listCustomFieldDefs(tenant: TenantContext): Promise<CustomFieldDef[]> {
  const out = await query({
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :sk)',
    ExpressionAttributeValues: { ':pk': keys.tenantPartition(tenant), ':sk': keys.customFieldPrefix },
  })
  return (out.Items ?? []).map((item) => ({
    key: item.key as string,
    label: item.label as string,
    type: item.field_type as CustomFieldType,
    required: item.required === true,
    options: (item.options as string[] | undefined) ?? [],
  }))
}

export async function putCustomFieldDef(tenant: TenantContext, def: CustomFieldDef): Promise<void> {
  await putItem({
    Item: {
      ...keys.customField(tenant, def.key),
      type: 'custom_field',
      key: def.key,
      label: def.label,
      field_type: def.type,
      required: def.required,
      options: [...def.options],
    },
  })
}

export async function batchGetUsers(tenant: TenantContext, ids: readonly string[]): Promise<User[]> {
  return (await batchGet(ids.map((id) => keys.user(tenant, id)))).map(toUser)
}

/** Every user of the tenant, newest first (dynamic group membership is computed over these). */
export async function listAllUsers(tenant: TenantContext): Promise<User[]> {
  const items = await queryAll({
    IndexName: usersBy.created.name,
    KeyConditionExpression: '#pk = :pk',
    ExpressionAttributeNames: { '#pk': usersBy.created.pk },
    ExpressionAttributeValues: { ':pk': keys.usersIndexPk(tenant) },
    ScanIndexForward: false,
  })
  return items.map(toUser)
}

/**
 * Bulk-loads users into an EMPTY tenant: for benchmarks and bulk loads only, never for a tenant that
 * already has users. Each user item and its e-mail guard go out in BatchWriteItem calls (25 items
 * each, `concurrency` calls in flight, unprocessed items retried with backoff); then the COUNTERS item
 * is SET (not added to) to the totals of `users`. None of insertUser's guarantees hold: no condition
 * (an existing user or e-mail is overwritten), no seat cap, no outbox event, no group membership.
 */
export async function seedUsers(
  tenant: TenantContext,
  users: readonly User[],
  concurrency = 8,
): Promise<void> {
  await batchPut(
    users.flatMap((user) => [
      userItem(tenant, user),
      { ...keys.userEmail(tenant, user.email), type: 'email_guard', user_id: user.id },
    ]),
    concurrency,
  )

  const totals: Record<string, number> = {}
  for (const user of users) {
    for (const [attr, d] of Object.entries(counterContributions(user))) totals[attr] = (totals[attr] ?? 0) + d
  }
  const names: Record<string, string> = {}
  const values: Record<string, number> = {}
  const sets = Object.entries(totals).map(([attr, n], i) => {
    names[`#c${i}`] = attr
    values[`:c${i}`] = n
    return `#c${i} = :c${i}`
  })
  await updateItem({
    Key: keys.counters(tenant),
    UpdateExpression: `SET ${sets.join(', ')}`,
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  })
}
