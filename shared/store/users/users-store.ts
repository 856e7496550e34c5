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
import { withDefault } from '../core/decode.ts'
import { defineEntity, field, optionalField, readOnlyField, sparseField } from '../core/entity.ts'
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

/**
 * The user item. Empty attributes are not stored: besides the index entries, the keys-only skip of a
 * deep page reads whole items on DynamoDB Local (decision 0014, addendum). A change that empties one
 * removes it.
 */
const userEntity = defineEntity(
  'user',
  {
    id: field('id', v.string()),
    userType: field('user_type', v.picklist(userTypes)),
    createdAt: field('created_at', v.string()),
    email: field('email', v.string()),
    firstName: field('first_name', v.string()),
    lastName: field('last_name', v.string()),
    role: field('role', v.picklist(writableRoles)),
    customRoleIds: sparseField('custom_role_ids', v.pipe(v.array(v.string()), v.readonly()), []),
    isActive: field('is_active', v.boolean()),
    externalId: optionalField('external_id', v.string()),
    customFields: sparseField('custom_fields', v.record(v.string(), v.unknown()), {}),
    locale: field('locale', withDefault(v.picklist(locales), 'en')),
    lastLoginAt: optionalField('last_login_at', v.string()),
    loginPeriod: field('login_period', v.optional(v.string())),
    updatedAt: field('updated_at', v.string()),
    erasedAt: field('erased_at', v.optional(v.string())),
    // A string set the groups store keeps (a set is never empty in DynamoDB: absent means none).
    groupIds: readOnlyField(
      'group_ids',
      v.optional(
        v.pipe(
          v.set(v.string()),
          v.transform((ids): readonly string[] => [...ids].sort()),
        ),
        new Set<string>(),
      ),
    ),
  },
  {
    key: (tenant: TenantContext, user) => keys.user(tenant, user.id),
    derived: (tenant, user) => ({
      [usersBy.created.pk]: keys.usersIndexPk(tenant),
      [usersBy.created.sk]: keys.usersByCreated(user.createdAt, user.id),
      [usersBy.lastName.pk]: keys.usersIndexPk(tenant),
      [usersBy.lastName.sk]: keys.usersByLastName(user.lastName, user.id),
      [usersBy.email.pk]: keys.usersIndexPk(tenant),
      [usersBy.email.sk]: keys.usersByEmail(user.email, user.id),
      ...userReportKeys(tenant, user),
      ...userPositionAttributes(user),
    }),
  },
)

/** A user as the declaration holds it: the dates it may lack are keys (undefined when it has none). */
const stored = (user: User) => ({ ...user, loginPeriod: user.loginPeriod, erasedAt: user.erasedAt })

/** @throws MalformedItem when the item is not a user */
export const toUser = (item: Item): User => userEntity.decode(item)

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
    { item: { Put: { Item: userEntity.item(tenant, stored(user)), ...notThere } }, refusal: 'id_taken' },
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
  const [was, now] = [stored(before), stored(after)]
  const fields = userEntity.changeOf(was, now)
  const indexed = attributeChange(userEntity.derived(tenant, was), userEntity.derived(tenant, now))
  // updated_at is always moved: it is what the next change's condition reads.
  const set = { ...fields.set, ...indexed.set, updated_at: after.updatedAt }
  const remove = [...fields.remove, ...indexed.remove]
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
          ...updateExpression({ set, remove }, stillAsRead),
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

const customFieldEntity = defineEntity(
  'custom_field',
  {
    key: field('key', v.string()),
    label: field('label', v.string()),
    type: field('field_type', v.picklist(customFieldTypes)),
    required: field('required', withDefault(v.boolean(), false)),
    options: field('options', withDefault(v.pipe(v.array(v.string()), v.readonly()), [])),
  },
  { key: (tenant: TenantContext, def) => keys.customField(tenant, def.key) },
)

export function customFieldDefsQueryParams(tenant: TenantContext): Omit<QueryCommandInput, 'TableName'> {
  return queryExpression({
    key: cond.and(cond.eq('pk', keys.tenantPartition(tenant)), cond.beginsWith('sk', keys.customFieldPrefix)),
  })
}

export async function listCustomFieldDefs(tenant: TenantContext): Promise<CustomFieldDef[]> {
  const out = await query(customFieldDefsQueryParams(tenant))
  return (out.Items ?? []).map(customFieldEntity.decode)
}

export function customFieldDefPutParams(
  tenant: TenantContext,
  def: CustomFieldDef,
): Omit<PutCommandInput, 'TableName'> {
  return { Item: customFieldEntity.item(tenant, def) }
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
  return [userEntity.item(tenant, stored(user)), emailGuardItem(tenant, user)]
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
