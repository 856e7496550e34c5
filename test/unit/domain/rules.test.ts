import { describe, expect, it } from 'vitest'
import { EntitlementError, ValidationError } from '../../../shared/domain/errors.ts'
import { planById, plans } from '../../../shared/domain/plans/catalog.ts'
import { monthlyApiCap, requireCapability, seatCapError } from '../../../shared/domain/plans/entitlements.ts'
import { validateCustomFields, type CustomFieldDef } from '../../../shared/domain/users/custom-fields.ts'
import { changeNeedsAdmin, resolveRole, roleChangeNeedsAdmin } from '../../../shared/domain/users/user.ts'

describe('Module: plans catalog', () => {
  it('prices the annual cycle 20% below monthly, in whole cents', () => {
    for (const p of plans) {
      if (p.pricePerActiveUserCentsMonthly === null) continue
      expect(p.pricePerActiveUserCentsAnnual).toBe(Math.round(p.pricePerActiveUserCentsMonthly * 0.8))
    }
  })

  it('gives API access from growth up, and names the plan to upgrade to', () => {
    expect(() => requireCapability('growth', 'api_access')).not.toThrow()
    const err = (() => {
      try {
        requireCapability('starter', 'api_access')
      } catch (e) {
        return e
      }
    })()
    expect(err).toBeInstanceOf(EntitlementError)
    expect(err).toMatchObject({
      kind: 'feature',
      flagOrLimit: 'api_access',
      currentTier: 'starter',
      requiredTier: 'growth',
    })
    expect(seatCapError('free')).toMatchObject({
      kind: 'cap',
      flagOrLimit: 'seat_cap',
      requiredTier: 'starter',
    })
  })

  it('lets an operator override win over the plan monthly cap', () => {
    expect(monthlyApiCap('growth', undefined)).toBe(planById('growth').apiMonthlyCap)
    expect(monthlyApiCap('growth', 10)).toBe(10)
    expect(monthlyApiCap('enterprise', null)).toBeNull()
  })
})

describe('Module: user roles', () => {
  it('turns author into a learner with Content Author, once', () => {
    expect(resolveRole('author')).toEqual({ role: 'learner', customRoleIds: ['content-author'] })
    expect(resolveRole('author', ['content-author'])).toEqual({
      role: 'learner',
      customRoleIds: ['content-author'],
    })
    expect(resolveRole('instructor', ['content-author'])).toEqual({
      role: 'instructor',
      customRoleIds: ['content-author'],
    })
  })

  it('needs admin for privileged roles, and for changing a privileged user', () => {
    expect(roleChangeNeedsAdmin('learner')).toBe(false)
    expect(roleChangeNeedsAdmin('author')).toBe(false)
    expect(roleChangeNeedsAdmin('owner')).toBe(true)
    expect(roleChangeNeedsAdmin('learner', 'admin')).toBe(true)
    expect(roleChangeNeedsAdmin('admin', 'admin')).toBe(true)
    expect(roleChangeNeedsAdmin('instructor', 'learner')).toBe(false)
  })

  it('needs admin for any change to a privileged user, whatever the change', () => {
    for (const role of ['manager', 'group_admin', 'ecommerce_admin', 'admin', 'owner'] as const) {
      expect(changeNeedsAdmin(role)).toBe(true)
      expect(changeNeedsAdmin(role, role)).toBe(true)
      expect(changeNeedsAdmin('learner', role)).toBe(true)
    }
    expect(changeNeedsAdmin('learner')).toBe(false)
    expect(changeNeedsAdmin('instructor', 'learner')).toBe(false)
    expect(changeNeedsAdmin('author', 'author')).toBe(false)
  })
})

describe('Function: validateCustomFields', () => {
  const defs: CustomFieldDef[] = [
    { key: 'start', label: 'Start', type: 'date', required: true, options: [] },
    { key: 'remote', label: 'Remote', type: 'boolean', required: false, options: [] },
  ]

  it('keeps valid values and drops nulls', () => {
    expect(validateCustomFields(defs, { start: '2026-01-31', remote: null })).toEqual({ start: '2026-01-31' })
  })

  it('names the field that fails', () => {
    expect(() => validateCustomFields(defs, {})).toThrow(/custom_fields.start is required/)
    expect(() => validateCustomFields(defs, { start: '31/01/2026' })).toThrow(ValidationError)
    expect(() => validateCustomFields(defs, { start: '2026-01-31', remote: 'yes' })).toThrow(
      /custom_fields.remote/,
    )
  })
})
