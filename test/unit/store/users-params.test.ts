import { describe, expect, it } from 'vitest'
import { newEvent } from '../../../shared/domain/events.ts'
import type { TenantContext } from '../../../shared/domain/tenants/tenant.ts'
import {
  allUsersQueryParams,
  customFieldDefPutParams,
  customFieldDefsQueryParams,
  insertUserSteps,
  saveUserSteps,
  toUser,
  userGetParams,
} from '../../../shared/store/users/users-store.ts'
import { usersQueryParams } from '../../../shared/store/users/users-list.ts'
import { MalformedItem } from '../../../shared/store/core/store-errors.ts'
import { readable } from '../../helpers/readable-expression.ts'
import { aUser } from '../../helpers/builders.ts'

const tenant: TenantContext = { id: 't1', plan: 'growth' }
const at = '2026-03-01T10:00:00.000Z'
const later = '2026-03-02T10:00:00.000Z'

const user = aUser({ id: 'u1', email: 'ada@example.com', createdAt: at })

describe('Function: userGetParams', () => {
  it('reads the user in the tenant partition, strongly consistent only when asked', () => {
    expect(userGetParams(tenant, 'u1')).toEqual({ Key: { pk: 'T#t1', sk: 'USER#u1' }, ConsistentRead: false })
    expect(userGetParams(tenant, 'u1', { consistent: true }).ConsistentRead).toBe(true)
  })
})

describe('Function: insertUserSteps', () => {
  it('writes the e-mail guard, the user and the counters under the seat cap, each naming its refusal', () => {
    // Act
    const steps = insertUserSteps(tenant, { user, seatCap: 5 })

    // Assess
    expect(steps.map((s) => s.refusal)).toEqual(['email_taken', 'id_taken', 'seat_cap'])
    const [guard, put, counters] = steps.map((s) => s.item)
    expect(guard?.Put?.Item).toEqual({
      pk: 'T#t1',
      sk: 'EMAIL#ada@example.com',
      type: 'email_guard',
      user_id: 'u1',
    })
    expect(guard?.Put?.ConditionExpression).toBe('attribute_not_exists(#n0)')
    expect(put?.Put?.Item).toMatchObject({
      pk: 'T#t1',
      sk: 'USER#u1',
      type: 'user',
      email: 'ada@example.com',
      gsi1pk: 'T#t1#USERS',
      gsi1sk: `${at}#u1`,
      gsi2sk: 'lovelace#u1',
      gsi3sk: 'ada@example.com#u1',
    })
    const update = counters?.Update
    expect(update?.Key).toEqual({ pk: 'T#t1', sk: 'COUNTERS' })
    expect(readable('UpdateExpression', update)).toBe(
      'ADD users_total 1, users_active 1, role_learner 1, type_internal 1, active_role_learner 1, active_type_internal 1',
    )
    expect(readable('ConditionExpression', update)).toBe(
      '(attribute_not_exists(users_active)) OR (users_active < 5)',
    )
  })

  it('puts no seat condition for an inactive user or without a cap, and appends the effects', () => {
    // Prepare
    const event = newEvent('user.created', { userId: 'u1', email: 'u1@example.com', role: 'learner' }, at)

    // Act
    const inactive = insertUserSteps(tenant, { user: { ...user, isActive: false }, seatCap: 5 })
    const uncapped = insertUserSteps(tenant, { user, seatCap: null, effects: { events: [event] } })

    // Assess
    expect(inactive[2]?.refusal).toBeUndefined()
    expect(inactive[2]?.item.Update?.ConditionExpression).toBeUndefined()
    expect(uncapped[2]?.item.Update?.ConditionExpression).toBeUndefined()
    expect(uncapped).toHaveLength(4)
    expect(uncapped[3]?.item.Put?.Item).toMatchObject({ pk: 'T#t1', type: 'event', event: 'user.created' })
  })
})

describe('Function: saveUserSteps', () => {
  it('sets only what changed, conditioned on the updated_at and role that were read', () => {
    // Act
    const [step, ...rest] = saveUserSteps(tenant, {
      before: user,
      after: { ...user, lastName: 'Byron', updatedAt: later },
      seatCap: 5,
    })

    // Assess
    expect(rest).toEqual([])
    expect(step?.refusal).toBe('stale')
    const update = step?.item.Update
    expect(update?.Key).toEqual({ pk: 'T#t1', sk: 'USER#u1' })
    expect(readable('UpdateExpression', update)).toBe(
      `SET last_name = "Byron", updated_at = "${later}", gsi2sk = "byron#u1"`,
    )
    expect(readable('ConditionExpression', update)).toBe(
      `(attribute_exists(pk)) AND (updated_at = "${at}") AND (role = "learner")`,
    )
  })

  it('moves the counters on reactivation under the seat cap, and on a role change without it', () => {
    // Act
    const reactivate = saveUserSteps(tenant, {
      before: { ...user, isActive: false },
      after: { ...user, updatedAt: later },
      seatCap: 3,
    })
    const promote = saveUserSteps(tenant, {
      before: user,
      after: { ...user, role: 'instructor', updatedAt: later },
      seatCap: 3,
    })

    // Assess
    const up = reactivate[1]?.item.Update
    expect(reactivate[1]?.refusal).toBe('seat_cap')
    expect(readable('UpdateExpression', up)).toBe(
      'ADD users_active 1, active_role_learner 1, active_type_internal 1',
    )
    expect(readable('ConditionExpression', up)).toBe(
      '(attribute_not_exists(users_active)) OR (users_active < 3)',
    )
    const moved = promote[1]?.item.Update
    expect(promote[1]?.refusal).toBeUndefined()
    expect(moved?.ConditionExpression).toBeUndefined()
    expect(readable('UpdateExpression', moved)).toBe(
      'ADD role_learner -1, active_role_learner -1, role_instructor 1, active_role_instructor 1',
    )
  })

  it('moves the e-mail guard with the address, deleting only this user own guard', () => {
    // Act
    const steps = saveUserSteps(tenant, {
      before: user,
      after: { ...user, email: 'erased-u1@erased.invalid', isActive: false, updatedAt: later },
      seatCap: null,
    })

    // Assess
    expect(steps.map((s) => s.refusal)).toEqual(['stale', undefined, 'email_taken', 'email_taken'])
    const del = steps[2]?.item.Delete
    expect(del?.Key).toEqual({ pk: 'T#t1', sk: 'EMAIL#ada@example.com' })
    expect(readable('ConditionExpression', del)).toBe('(attribute_not_exists(pk)) OR (user_id = "u1")')
    expect(steps[3]?.item.Put?.Item).toEqual({
      pk: 'T#t1',
      sk: 'EMAIL#erased-u1@erased.invalid',
      type: 'email_guard',
      user_id: 'u1',
    })
  })
})

describe('Function: toUser', () => {
  it('reads older items without the later attributes, and the group set sorted', () => {
    // Prepare
    const item = {
      pk: 'T#t1',
      sk: 'USER#u1',
      id: 'u1',
      email: 'ada@example.com',
      first_name: 'Ada',
      last_name: 'Lovelace',
      role: 'author',
      is_active: true,
      user_type: 'internal',
      group_ids: new Set(['g2', 'g1']),
      created_at: at,
      updated_at: at,
    }

    // Act + Assess
    expect(toUser(item)).toEqual({ ...user, role: 'author', groupIds: ['g1', 'g2'] })
  })

  it('fails loudly on an item that is not a user, naming the key', () => {
    expect(() => toUser({ pk: 'T#t1', sk: 'USER#u1', id: 'u1', role: 'pope' })).toThrow(MalformedItem)
    expect(() => toUser({ pk: 'T#t1', sk: 'USER#u1' })).toThrow(/user item \(T#t1 \/ USER#u1\)/)
  })
})

describe('Function: usersQueryParams', () => {
  const base = { sortBy: 'last_name', order: 'asc' } as const

  it('queries the sort order index of the tenant, filtering what the key does not hold', () => {
    // Act
    const out = usersQueryParams(tenant, { ...base, role: 'author', isActive: true })

    // Assess
    expect(out.IndexName).toBe('gsi2')
    expect(out.ScanIndexForward).toBe(true)
    expect(out.KeyConditionExpression).toBe('#n0 = :v0')
    expect(out.ExpressionAttributeNames).toMatchObject({ '#n0': 'gsi2pk' })
    expect(out.ExpressionAttributeValues).toMatchObject({ ':v0': 'T#t1#USERS' })
    expect(out.FilterExpression).toBe('((#n1 = :v1) OR (contains(#n2, :v2))) AND (#n3 = :v3)')
    expect(out.ExpressionAttributeValues).toMatchObject({
      ':v1': 'author',
      ':v2': 'content-author',
      ':v3': true,
    })
  })

  it('narrows the created index by the date range in its key instead of filtering', () => {
    // Act
    const out = usersQueryParams(tenant, {
      sortBy: 'created_at',
      order: 'desc',
      createdAfter: '2026-01-01',
      createdBefore: '2026-02-01',
    })

    // Assess
    expect(out.IndexName).toBe('gsi1')
    expect(out.ScanIndexForward).toBe(false)
    expect(out.KeyConditionExpression).toBe('(#n0 = :v0) AND (#n1 BETWEEN :v1 AND :v2)')
    expect(out.ExpressionAttributeValues).toEqual({
      ':v0': 'T#t1#USERS',
      ':v1': '2026-01-01#~',
      ':v2': '2026-02-01',
    })
    expect(out.FilterExpression).toBeUndefined()
  })

  it('filters by date on the other sort orders', () => {
    const out = usersQueryParams(tenant, { ...base, sortBy: 'email', createdAfter: '2026-01-01' })
    expect(out.IndexName).toBe('gsi3')
    expect(out.FilterExpression).toBe('#n1 > :v1')
    expect(out.ExpressionAttributeNames).toMatchObject({ '#n1': 'created_at' })
  })
})

describe('Functions: the other user reads and writes', () => {
  it('lists every user of the tenant newest first on the created index', () => {
    expect(allUsersQueryParams(tenant)).toEqual({
      IndexName: 'gsi1',
      KeyConditionExpression: '#n0 = :v0',
      ExpressionAttributeNames: { '#n0': 'gsi1pk' },
      ExpressionAttributeValues: { ':v0': 'T#t1#USERS' },
      ScanIndexForward: false,
    })
  })

  it('reads and writes custom field definitions in the tenant partition', () => {
    expect(customFieldDefsQueryParams(tenant)).toEqual({
      KeyConditionExpression: '(#n0 = :v0) AND (begins_with(#n1, :v1))',
      ExpressionAttributeNames: { '#n0': 'pk', '#n1': 'sk' },
      ExpressionAttributeValues: { ':v0': 'T#t1', ':v1': 'CFIELD#' },
    })
    const def = { key: 'dept', label: 'Department', type: 'select', required: true, options: ['a'] } as const
    expect(customFieldDefPutParams(tenant, def).Item).toEqual({
      pk: 'T#t1',
      sk: 'CFIELD#dept',
      type: 'custom_field',
      key: 'dept',
      label: 'Department',
      field_type: 'select',
      required: true,
      options: ['a'],
    })
  })
})
