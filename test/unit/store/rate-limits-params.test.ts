import { describe, expect, it } from 'vitest'
import { newNotification } from '../../../shared/domain/events.ts'
import type { TenantContext } from '../../../shared/domain/tenants/tenant.ts'
import {
  monthlyUsageParams,
  usageAlertSteps,
  windowParams,
} from '../../../shared/store/tenants/rate-limits-store.ts'
import { readable } from '../../helpers/readable-expression.ts'

const tenant: TenantContext = { id: 't1', plan: 'growth' }

describe('Function: windowParams', () => {
  it('adds one unless the window holds its limit, with the window expiry, returning the count', () => {
    // Act
    const params = windowParams({ pk: 'RL#k1#60', sk: 'RL' }, 1000, 180)

    // Assess
    expect(params.Key).toEqual({ pk: 'RL#k1#60', sk: 'RL' })
    expect(readable('UpdateExpression', params)).toBe('SET ttl = 180 ADD count 1')
    expect(readable('ConditionExpression', params)).toBe('(attribute_not_exists(count)) OR (count < 1000)')
    expect(params.ReturnValues).toBe('UPDATED_NEW')
  })
})

describe('Function: monthlyUsageParams', () => {
  it('counts the tenant month under its cap', () => {
    const params = monthlyUsageParams(tenant, '2026-03', 40)
    expect(params.Key).toEqual({ pk: 'T#t1', sk: 'USAGE#2026-03' })
    expect(readable('UpdateExpression', params)).toBe('ADD count 1')
    expect(readable('ConditionExpression', params)).toBe('(attribute_not_exists(count)) OR (count < 40)')
  })

  it('counts without a condition when the plan has no cap', () => {
    expect(monthlyUsageParams(tenant, '2026-03', null).ConditionExpression).toBeUndefined()
  })
})

describe('Function: usageAlertSteps', () => {
  it('writes the month and threshold marker once (refused as already_alerted) with the alert', () => {
    // Prepare
    const alert = newNotification('usage_alert', null, { percent: 80 }, '2026-03-10T00:00:00.000Z')

    // Act
    const steps = usageAlertSteps(tenant, { month: '2026-03', percent: 80 }, { notifications: [alert] })

    // Assess
    expect(steps.map((s) => s.refusal)).toEqual(['already_alerted', undefined])
    expect(steps[0]?.item.Put?.Item).toEqual({
      pk: 'T#t1',
      sk: 'USAGEALERT#2026-03#80',
      type: 'usage_alert_marker',
    })
    expect(readable('ConditionExpression', steps[0]?.item.Put)).toBe('attribute_not_exists(pk)')
    expect(steps[1]?.item.Put?.Item).toMatchObject({
      pk: 'T#t1',
      type: 'notification',
      template: 'usage_alert',
    })
  })
})
