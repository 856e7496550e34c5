/**
 * Users in the tenant's partition. Invariants live in the write itself: e-mail uniqueness is a
 * guard item written with the user, the seat cap is a condition on the tenant's counters item, and
 * a change holds only while the user still is as it was read (its updated_at and role).
 */
import type { PutCommandInput, QueryCommandInput } from '@aws-sdk/lib-dynamodb'
import * as v from 'valibot'
import type { Effects } from '../../domain/events.ts'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import { customFieldTypes, type CustomFieldDef } from '../../domain/users/custom-fields.ts'
import {
  takesSeat,
  userCounterContributions,
  userCounterDeltas,
  userCounterTotals,
} from '../../domain/users/user-counters.ts'
import { locales, userTypes, writableRoles, type User } from '../../domain/users/user.ts'
import { getCounters, counterStep, countersSetParams, movesCounters } from '../tenants/counters.ts'
import { batchGet, batchPut, getItem, putItem, query, queryAll, updateItem, type Item } from '../core/db.ts'
import { decodeItem, nullable, unlessEmpty, withDefault } from '../core/decode.ts'
import {
  attributeChange,
  cond,
  conditionExpression,
  queryExpression,
  updateExpression,
} from '../core/expression.ts'
import { indexes, keys, type Key } from '../core/keys.ts'
import { effectSteps } from '../outbox/outbox-items.ts'
import { userReportKeys } from '../reports/report-indexes.ts'
import { commit, type Step } from '../core/transaction.ts'
import { userPositionAttributes } from './user-positions.ts'
import { readProjectionSteps } from '../reports/report-projections.ts'

/** What the tenant-wide indexes mean for users: the three sort orders of the users list. */
export const usersBy = { created: indexes.gsi1, lastName: indexes.gsi2, email: indexes.gsi3 } as const

/** What a refused user write stands for. */
export type UserRefusal = 'email_taken' | 'seat_cap' | 'stale' | 'id_taken'

const UserItem = v.object({
  pk: v.string(),
  sk: v.string(),
  id: v.string(),
  email: v.string(),
  first_name: v.string(),
  last_name: v.string(),
  role: v.picklist(writableRoles),
  custom_role_ids: withDefault(v.array(v.string()), []),
  is_active: v.boolean(),
  user_type: v.picklist(userTypes),
  external_id: nullable(v.string()),
  custom_fields: withDefault(v.record(v.string(), v.unknown()), {}),
  locale: withDefault(v.picklist(locales), 'en'),
  // A string set kept by the groups store (a set is never empty in DynamoDB: absent means none).
  group_ids: v.optional(v.set(v.string())),
  last_login_at: nullable(v.string()),
  login_period: v.optional(v.string()),
  created_at: v.string(),
  updated_at: v.string(),
  erased_at: v.optional(v.string()),
})

/** @throws MalformedItem when the item is not a user */
export function toUser(item: Item): User {
  const u = decodeItem('user', UserItem, item)
  return {
    id: u.id,
    email: u.email,
    firstName: u.first_name,
    lastName: u.last_name,
    role: u.role,
    customRoleIds: u.custom_role_ids,
    isActive: u.is_active,
    userType: u.user_type,
    externalId: u.external_id,
    customFields: u.custom_fields,
    locale: u.locale,
    groupIds: [...(u.group_ids ?? [])].sort(),
    lastLoginAt: u.last_login_at,
    ...(u.login_period !== undefined ? { loginPeriod: u.login_period } : {}),
    createdAt: u.created_at,
    updatedAt: u.updated_at,
    ...(u.erased_at !== undefined ? { erasedAt: u.erased_at } : {}),
  }
}

/**
 * The attributes a change may move: everything but the keys, the ids and the group set. Empty ones
 * are not stored: besides the index entries, the keys-only skip of a deep page reads whole items
 * on DynamoDB Local (decision 0014, addendum). A change that empties one removes it.
 */
function changeableAttributes(tenant: TenantContext, user: User): Item {
  return {
    email: user.email,
    first_name: user.firstName,
    last_name: user.lastName,
    role: user.role,
    custom_role_ids: unlessEmpty([...user.customRoleIds], user.customRoleIds.length === 0),
    is_active: user.isActive,
    external_id: unlessEmpty(user.externalId),
    custom_fields: unlessEmpty(user.customFields, Object.keys(user.customFields).length === 0),
    locale: user.locale,
    last_login_at: unlessEmpty(user.lastLoginAt),
    ...(user.loginPeriod !== undefined ? { login_period: user.loginPeriod } : {}),
    updated_at: user.updatedAt,
    ...(user.erasedAt !== undefined ? { erased_at: user.erasedAt } : {}),
    [usersBy.lastName.sk]: keys.usersByLastName(user.lastName, user.id),
    [usersBy.email.sk]: keys.usersByEmail(user.email, user.id),
    ...userReportKeys(tenant, user),
  }
}

function userItem(tenant: TenantContext, user: User): Item {
  const indexPk = keys.usersIndexPk(tenant)
  return {
    ...keys.user(tenant, user.id),
    type: 'user',
    id: user.id,
    user_type: user.userType,
    created_at: user.createdAt,
    ...changeableAttributes(tenant, user),
    [usersBy.created.pk]: indexPk,
    [usersBy.created.sk]: keys.usersByCreated(user.createdAt, user.id),
    [usersBy.lastName.pk]: indexPk,
    [usersBy.email.pk]: indexPk,
    ...userPositionAttributes(user),
  }
}

const emailGuardItem = (tenant: TenantContext, user: Pick<User, 'id' | 'email'>): Item => ({
  ...keys.userEmail(tenant, user.email),
  type: 'email_guard',
  user_id: user.id,
})

export function userGetParams(
  tenant: TenantContext,
  id: string,
  { consistent = false } = {},
): { Key: Key; ConsistentRead: boolean } {
  return { Key: keys.user(tenant, id), ConsistentRead: consistent }
}

export async function getUser(
  tenant: TenantContext,
  id: string,
  options: { consistent?: boolean } = {},
): Promise<User | undefined> {
  const { Key, ...rest } = userGetParams(tenant, id, options)
  const item = await getItem(Key, rest)
  return item ? toUser(item) : undefined
}

/** The seat cap as a condition on the counters item: the change that would pass it is refused. */
function seatCapGuard(seatCap: number | null, taking: boolean) {
  if (!taking || seatCap === null) return undefined
  return {
    condition: cond.or(cond.notExists('users_active'), cond.lt('users_active', seatCap)),
    refusal: 'seat_cap' as const,
  }
}

/** A new user, the cap its seat must fit under, and what its creation causes. */
export interface NewUser {
  readonly user: User
  readonly seatCap: number | null
  readonly effects?: Effects
}

/** The user, its e-mail guard, its share of the counters and its effects, as one transaction. */
export function insertUserSteps(
  tenant: TenantContext,
  { user, seatCap, effects = {} }: NewUser,
): Step<UserRefusal>[] {
  const notThere = conditionExpression(cond.notExists())
  return [
    { item: { Put: { Item: emailGuardItem(tenant, user), ...notThere } }, refusal: 'email_taken' },
    // A fresh UUID: refused only if the id were already taken, which no caller handles.
    { item: { Put: { Item: userItem(tenant, user), ...notThere } }, refusal: 'id_taken' },
    counterStep(tenant, userCounterContributions(user), seatCapGuard(seatCap, takesSeat(undefined, user))),
    ...effectSteps(tenant, effects),
  ]
}

/** @throws WriteRefused naming `email_taken` or `seat_cap` */
export async function insertUser(tenant: TenantContext, change: NewUser): Promise<void> {
  await commit(insertUserSteps(tenant, change))
}

/** A user as read (`before`) and as decided (`after`), with the seat cap and what the change causes. */
export interface UserChange {
  readonly before: User
  readonly after: User
  readonly seatCap: number | null
  readonly effects?: Effects
}

/**
 * The attributes that differ, the counters they move, the e-mail guard when the address changes,
 * and the effects: applied only while the stored user still has `before`'s updated_at and role (who
 * may make a change is decided on the role, and updated_at has only ms resolution).
 */
export function saveUserSteps(
  tenant: TenantContext,
  { before, after, seatCap, effects = {} }: UserChange,
): Step<UserRefusal>[] {
  const change = attributeChange(changeableAttributes(tenant, before), changeableAttributes(tenant, after))
  // updated_at is always moved: it is what the next change's condition reads.
  const set = { ...change.set, updated_at: after.updatedAt }
  const stillAsRead = cond.and(
    cond.exists(),
    cond.eq('updated_at', before.updatedAt),
    cond.eq('role', before.role),
  )
  const deltas = userCounterDeltas(before, after)
  return [
    {
      item: {
        Update: {
          Key: keys.user(tenant, before.id),
          ...updateExpression({ set, remove: change.remove }, stillAsRead),
        },
      },
      refusal: 'stale',
    },
    ...(movesCounters(deltas)
      ? [counterStep(tenant, deltas, seatCapGuard(seatCap, takesSeat(before, after)))]
      : []),
    ...(after.email !== before.email ? emailGuardMove(tenant, before, after.email) : []),
    ...effectSteps(tenant, effects),
  ]
}

/** @throws WriteRefused naming `stale`, `seat_cap` or `email_taken` */
export async function saveUser(tenant: TenantContext, change: UserChange): Promise<void> {
  const { before, after } = change
  const read = await readProjectionSteps<UserRefusal>(
    tenant,
    { kind: 'user-changed', before, after },
    'stale',
  )
  await commit([...saveUserSteps(tenant, change), ...read])
}

/** Frees the old address for reuse and claims the new one, only if the old guard is this user's. */
function emailGuardMove(tenant: TenantContext, before: User, email: string): Step<UserRefusal>[] {
  // A guard already gone is fine to "delete"; another user's is never touched.
  const ownGuard = cond.or(cond.notExists(), cond.eq('user_id', before.id))
  return [
    {
      item: { Delete: { Key: keys.userEmail(tenant, before.email), ...conditionExpression(ownGuard) } },
      refusal: 'email_taken',
    },
    {
      item: {
        Put: {
          Item: emailGuardItem(tenant, { id: before.id, email }),
          ...conditionExpression(cond.notExists()),
        },
      },
      refusal: 'email_taken',
    },
  ]
}

export interface UserCounters {
  readonly total: number
  readonly active: number
  readonly byAttribute: Readonly<Record<string, number>>
}

export async function getUserCounters(tenant: TenantContext): Promise<UserCounters> {
  const counters = await getCounters(tenant)
  return { total: counters.users_total ?? 0, active: counters.users_active ?? 0, byAttribute: counters }
}

const CustomFieldItem = v.object({
  key: v.string(),
  label: v.string(),
  field_type: v.picklist(customFieldTypes),
  required: withDefault(v.boolean(), false),
  options: withDefault(v.array(v.string()), []),
})

export function customFieldDefsQueryParams(tenant: TenantContext): Omit<QueryCommandInput, 'TableName'> {
  return queryExpression({
    key: cond.and(cond.eq('pk', keys.tenantPartition(tenant)), cond.beginsWith('sk', keys.customFieldPrefix)),
  })
}

export async function listCustomFieldDefs(tenant: TenantContext): Promise<CustomFieldDef[]> {
  const out = await query(customFieldDefsQueryParams(tenant))
  return (out.Items ?? []).map((item) => {
    const def = decodeItem('custom_field', CustomFieldItem, item)
    return {
      key: def.key,
      label: def.label,
      type: def.field_type,
      required: def.required,
      options: def.options,
    }
  })
}

export function customFieldDefPutParams(
  tenant: TenantContext,
  def: CustomFieldDef,
): Omit<PutCommandInput, 'TableName'> {
  return {
    Item: {
      ...keys.customField(tenant, def.key),
      type: 'custom_field',
      key: def.key,
      label: def.label,
      field_type: def.type,
      required: def.required,
      options: [...def.options],
    },
  }
}

export async function putCustomFieldDef(tenant: TenantContext, def: CustomFieldDef): Promise<void> {
  await putItem(customFieldDefPutParams(tenant, def))
}

export async function batchGetUsers(tenant: TenantContext, ids: readonly string[]): Promise<User[]> {
  return (await batchGet(ids.map((id) => keys.user(tenant, id)))).map(toUser)
}

export function allUsersQueryParams(tenant: TenantContext): Omit<QueryCommandInput, 'TableName'> {
  return {
    IndexName: usersBy.created.name,
    ...queryExpression({ key: cond.eq(usersBy.created.pk, keys.usersIndexPk(tenant)) }),
    ScanIndexForward: false,
  }
}

/** Every user of the tenant, newest first (dynamic group membership is computed over these). */
export async function listAllUsers(tenant: TenantContext): Promise<User[]> {
  return (await queryAll(allUsersQueryParams(tenant))).map(toUser)
}

/** A user's items without conditions: a new tenant's owner (in the tenant's transaction), a bulk load. */
export function newUserItems(tenant: TenantContext, user: User): Item[] {
  return [userItem(tenant, user), emailGuardItem(tenant, user)]
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
    users.flatMap((user) => newUserItems(tenant, user)),
    concurrency,
  )
  await updateItem(countersSetParams(tenant, userCounterTotals(users)))
}
