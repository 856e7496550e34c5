import { describe, expect, it } from 'vitest'
import type { Group } from '../../../shared/domain/groups/group.ts'
import type { TenantContext } from '../../../shared/domain/tenants/tenant.ts'
import type { TransactItem } from '../../../shared/store/core/db.ts'
import {
  deleteGroupSteps,
  existingMembershipsParams,
  getGroupParams,
  insertGroupSteps,
  listGroupsParams,
  listMemberEdgesParams,
  membershipSteps,
  saveGroupSteps,
} from '../../../shared/store/groups/groups-store.ts'
import { rendered } from '../../helpers/readable-expression.ts'

const tenant: TenantContext = { id: 'ten-1', plan: 'free' }
const pk = 'T#ten-1'
const at = '2026-02-01T00:00:00.000Z'
const sales: Group = {
  id: 'g1',
  name: 'Sales',
  description: 'Field sales',
  memberCount: 3,
  kind: 'static',
  rule: null,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-02T00:00:00.000Z',
}

const update = (item: TransactItem) => {
  const u = item.Update
  if (!u) throw new Error('not an update')
  return {
    key: u.Key,
    update: rendered(u.UpdateExpression, u),
    condition: rendered(u.ConditionExpression, u),
  }
}
const conditionOf = (item: TransactItem) => {
  const c = item.Put ?? item.Delete
  return c ? rendered(c.ConditionExpression, c) : undefined
}

describe('Params: reading groups', () => {
  it('reads a group by its tenant-first key, and lists the tenant’s groups by prefix', () => {
    expect(getGroupParams(tenant, 'g1')).toEqual({ Key: { pk, sk: 'GROUP#g1' } })
    const list = listGroupsParams(tenant)
    expect(rendered(list.KeyConditionExpression, list)).toBe(
      '(pk = "T#ten-1") AND (begins_with(sk, "GROUP#"))',
    )
  })

  it('reads a group’s member items by prefix, and checks pairs reading two attributes only', () => {
    const edges = listMemberEdgesParams(tenant, 'g1')
    expect(rendered(edges.KeyConditionExpression, edges)).toBe(
      '(pk = "T#ten-1") AND (begins_with(sk, "GMEMBER#g1#"))',
    )
    const pairs = existingMembershipsParams(tenant, [{ groupId: 'g1', userId: 'u1' }])
    expect(pairs.Keys).toEqual([{ pk, sk: 'GMEMBER#g1#u1' }])
    expect(rendered(pairs.ProjectionExpression, pairs)).toBe('user_id, group_id')
  })
})

describe('Params: creating, renaming and deleting a group', () => {
  it('takes the lower-cased name guard and puts the group, each refusing by name', () => {
    // Act
    const [guard, group] = insertGroupSteps(tenant, sales)

    // Assess
    expect(guard?.refusal).toBe('name_taken')
    expect(guard?.item.Put?.Item).toEqual({
      pk,
      sk: 'GROUPNAME#sales',
      type: 'group_name_guard',
      group_id: 'g1',
    })
    expect(conditionOf(guard?.item ?? {})).toBe('attribute_not_exists(pk)')
    expect(group?.refusal).toBe('group_exists')
    expect(group?.item.Put?.Item).toMatchObject({
      pk,
      sk: 'GROUP#g1',
      member_count: 0,
      kind: 'static',
    })
    // A static group has no rule: nothing is stored for it.
    expect(group?.item.Put?.Item).not.toHaveProperty('rule')
  })

  it('renames: takes the new guard, frees the old, updates the group if live and unchanged since read', () => {
    // Act
    const steps = saveGroupSteps(tenant, {
      before: sales,
      after: { ...sales, name: 'Sales EU', updatedAt: at },
    })

    // Assess
    const [guard, free, group] = steps
    expect(steps).toHaveLength(3)
    expect(guard?.refusal).toBe('name_taken')
    expect(guard?.item.Put?.Item).toMatchObject({ sk: 'GROUPNAME#sales eu', group_id: 'g1' })
    expect(free?.item.Delete?.Key).toEqual({ pk, sk: 'GROUPNAME#sales' })
    expect(free?.refusal).toBeUndefined()
    expect(group?.refusal).toBe('stale')
    expect(update(group?.item ?? {})).toEqual({
      key: { pk, sk: 'GROUP#g1' },
      update: `SET name = "Sales EU", updated_at = "${at}"`,
      condition: `((attribute_exists(pk)) AND (attribute_not_exists(deleted_at))) AND (updated_at = "${sales.updatedAt}")`,
    })
  })

  it('keeps the guard when the name changes only by case or not at all', () => {
    const recased = saveGroupSteps(tenant, {
      before: sales,
      after: { ...sales, name: 'SALES', updatedAt: at },
    })
    expect(recased).toHaveLength(1)
    expect(update(recased[0]?.item ?? {}).update).toBe(`SET name = "SALES", updated_at = "${at}"`)
    const described = saveGroupSteps(tenant, {
      before: sales,
      after: { ...sales, description: null, updatedAt: at },
    })
    expect(update(described[0]?.item ?? {}).update).toBe(`SET updated_at = "${at}" REMOVE description`)
  })

  it('deletes softly if still live, freeing the name in the same transaction', () => {
    // Act
    const [group, free] = deleteGroupSteps(tenant, sales, at)

    // Assess
    expect(group?.refusal).toBe('not_found')
    expect(update(group?.item ?? {})).toEqual({
      key: { pk, sk: 'GROUP#g1' },
      update: `SET deleted_at = "${at}", updated_at = "${at}"`,
      condition: '(attribute_exists(pk)) AND (attribute_not_exists(deleted_at))',
    })
    expect(free?.item.Delete?.Key).toEqual({ pk, sk: 'GROUPNAME#sales' })
  })
})

describe('Params: memberships', () => {
  const pairs = [
    { groupId: 'g1', userId: 'u1' },
    { groupId: 'g1', userId: 'u2' },
  ]

  it('adds: a member item per pair, the group to each active user, the count to each static live group', () => {
    // Act
    const steps = membershipSteps(tenant, pairs, 1, { requireActiveUser: true, countOnGroup: true }, at)

    // Assess
    expect(steps.map((s) => s.refusal)).toEqual([
      { kind: 'member', pair: pairs[0] },
      { kind: 'member', pair: pairs[1] },
      { kind: 'user', userId: 'u1' },
      { kind: 'user', userId: 'u2' },
      { kind: 'group', groupId: 'g1' },
    ])
    const [member, , user, , group] = steps
    expect(member?.item.Put?.Item).toEqual({
      pk,
      sk: 'GMEMBER#g1#u1',
      type: 'group_member',
      group_id: 'g1',
      user_id: 'u1',
      added_at: at,
    })
    expect(conditionOf(member?.item ?? {})).toBe('attribute_not_exists(pk)')
    expect(update(user?.item ?? {})).toEqual({
      key: { pk, sk: 'USER#u1' },
      update: 'ADD group_ids <<g1>>',
      condition: '(attribute_exists(pk)) AND (is_active = true)',
    })
    expect(update(group?.item ?? {})).toEqual({
      key: { pk, sk: 'GROUP#g1' },
      update: 'ADD member_count 2',
      condition: '((attribute_exists(pk)) AND (attribute_not_exists(deleted_at))) AND (kind = "static")',
    })
  })

  it('removes: deletes existing member items and the group from each user, any user, and may leave the count', () => {
    // Act
    const steps = membershipSteps(tenant, pairs, -1, { requireActiveUser: true, countOnGroup: false }, at)

    // Assess
    expect(steps).toHaveLength(4)
    expect(steps[0]?.item.Delete?.Key).toEqual({ pk, sk: 'GMEMBER#g1#u1' })
    expect(conditionOf(steps[0]?.item ?? {})).toBe('attribute_exists(pk)')
    expect(update(steps[3]?.item ?? {})).toEqual({
      key: { pk, sk: 'USER#u2' },
      update: 'DELETE group_ids <<g1>>',
      condition: 'attribute_exists(pk)',
    })
  })
})
