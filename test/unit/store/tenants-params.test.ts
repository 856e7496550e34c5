import { describe, expect, it } from 'vitest'
import type { Tenant } from '../../../shared/domain/tenants/tenant.ts'
import { SEEDED_ROLES } from '../../../shared/domain/users/user.ts'
import {
  insertTenantSteps,
  tenantGetParams,
  tenantSteps,
} from '../../../shared/store/tenants/tenants-store.ts'
import { readable } from '../../helpers/readable-expression.ts'
import { aUser } from '../../helpers/builders.ts'

const at = '2026-03-01T10:00:00.000Z'
const tenant: Tenant = {
  id: 't1',
  slug: 'acme',
  name: 'Acme',
  plan: 'free',
  kind: 'customer',
  status: 'active',
  skillsPlanning: false,
  monthlyApiCap: null,
  periodStart: null,
  createdAt: at,
  updatedAt: at,
}
const owner = aUser({ id: 'u1', email: 'ada@example.com', role: 'owner', createdAt: at })

describe('Function: insertTenantSteps', () => {
  it('claims the slug, copies the tenant under its id, starts the counters and seeds the roles', () => {
    // Act
    const steps = insertTenantSteps({ tenant, seededRoles: SEEDED_ROLES })

    // Assess
    expect(steps.map((s) => s.refusal)).toEqual(['slug_taken', undefined, undefined, undefined, undefined])
    const [claim, pointer, counters, role] = steps.map((s) => s.item.Put)
    expect(claim?.Item).toMatchObject({ pk: 'TENANT#acme', sk: 'TENANT', id: 't1', plan: 'free', version: 1 })
    expect(readable('ConditionExpression', claim)).toBe('attribute_not_exists(pk)')
    expect(pointer?.Item).toEqual({ ...claim?.Item, pk: 'TENANTID#t1' })
    expect(counters).toEqual({ Item: { pk: 'T#t1', sk: 'COUNTERS', users_total: 0, users_active: 0 } })
    expect(role?.Item).toMatchObject({ pk: 'T#t1', sk: 'CROLE#content-author', seeded: true })
    expect(steps.slice(1).every((s) => s.item.Put?.ConditionExpression === undefined)).toBe(true)
    // The registry the scheduled jobs go through
    expect(steps.at(-1)?.item.Put?.Item).toEqual({
      pk: 'PLATFORM#TENANTS',
      sk: 'TENANT#t1',
      type: 'tenant_registry',
      tenant_id: 't1',
      slug: 'acme',
    })
  })

  it('writes the owner and its e-mail guard with the tenant, counted in the first counters', () => {
    // Act
    const steps = insertTenantSteps({ tenant, seededRoles: [], owner })

    // Assess
    expect(steps.map((s) => s.item.Put?.Item?.sk)).toEqual([
      'TENANT',
      'TENANT',
      'COUNTERS',
      'USER#u1',
      'EMAIL#ada@example.com',
      'TENANT#t1',
    ])
    expect(steps[2]?.item.Put?.Item).toMatchObject({
      users_total: 1,
      users_active: 1,
      role_owner: 1,
      active_role_owner: 1,
    })
  })
})

describe('Functions: tenant reads and changes', () => {
  it('reads the tenant by its slug', () => {
    expect(tenantGetParams('acme')).toEqual({ Key: { pk: 'TENANT#acme', sk: 'TENANT' } })
  })

  it('writes a change to both items over the version it was decided from', () => {
    // Act
    const [slugItem, idItem] = tenantSteps({ ...tenant, plan: 'growth' }, 2)

    // Assess
    expect(slugItem.item.Put?.Item).toMatchObject({ pk: 'TENANT#acme', plan: 'growth', version: 3 })
    expect(readable('ConditionExpression', slugItem.item.Put)).toBe('version = 2')
    expect(slugItem.refusal).toBe('stale')
    expect(idItem.item.Put?.Item).toMatchObject({
      pk: 'TENANTID#t1',
      sk: 'TENANT',
      plan: 'growth',
      version: 3,
    })
    expect(idItem.item.Put?.ConditionExpression).toBeUndefined()
  })

  it('writes the first change of a tenant from before versions over an existing item without one', () => {
    const [slugItem] = tenantSteps(tenant, 0)
    expect(slugItem.item.Put?.Item).toMatchObject({ version: 1 })
    expect(readable('ConditionExpression', slugItem.item.Put)).toBe(
      '(attribute_exists(pk)) AND ((attribute_not_exists(version)) OR (version = 0))',
    )
  })
})
