import { GetCommand } from '@aws-sdk/lib-dynamodb'
import { afterAll, describe, expect, it } from 'vitest'
import type { TenantContext } from '../../../shared/domain/tenants/tenant.ts'
import { cond } from '../../../shared/store/core/expression.ts'
import {
  counterStep,
  countersGetParams,
  countersPutParams,
  countersSetParams,
  getCounters,
} from '../../../shared/store/tenants/counters.ts'
import { MalformedItem } from '../../../shared/store/core/store-errors.ts'
import { readable } from '../../helpers/readable-expression.ts'
import { mockDocuments } from '../../helpers/mock-documents.ts'

const tenant: TenantContext = { id: 't1', plan: 'growth' }

describe('Functions: the counters item', () => {
  it('is one item in the tenant partition', () => {
    expect(countersGetParams(tenant)).toEqual({ Key: { pk: 'T#t1', sk: 'COUNTERS' } })
    expect(countersPutParams(tenant, { users_total: 1 })).toEqual({
      Item: { pk: 'T#t1', sk: 'COUNTERS', users_total: 1 },
    })
  })

  it('adds deltas in a step, leaving zero deltas out, with the guard and the refusal it stands for', () => {
    // Act
    const step = counterStep(tenant, { a: 1, b: 0, c: -2 }, { condition: cond.lt('a', 9), refusal: 'cap' })

    // Assess
    expect(step.refusal).toBe('cap')
    expect(step.item.Update?.Key).toEqual({ pk: 'T#t1', sk: 'COUNTERS' })
    expect(readable('UpdateExpression', step.item.Update)).toBe('ADD a 1, c -2')
    expect(readable('ConditionExpression', step.item.Update)).toBe('a < 9')
    expect(counterStep(tenant, { a: 1 })).toEqual({
      item: { Update: expect.not.objectContaining({ ConditionExpression: expect.anything() }) },
    })
  })

  it('sets absolute values for a bulk load', () => {
    const params = countersSetParams(tenant, { users_total: 3 })
    expect(params.Key).toEqual({ pk: 'T#t1', sk: 'COUNTERS' })
    expect(readable('UpdateExpression', params)).toBe('SET users_total = 3')
  })
})

describe('Function: getCounters', () => {
  const ddb = mockDocuments()
  afterAll(() => ddb.restore())

  it('reads every counter but the key, none for a tenant without the item, and refuses a counter that is not a number', async () => {
    // Prepare
    ddb
      .on(GetCommand)
      .resolvesOnce({ Item: { pk: 'T#t1', sk: 'COUNTERS', users_total: 2, users_active: 1 } })
      .resolvesOnce({})
      .resolvesOnce({ Item: { pk: 'T#t1', sk: 'COUNTERS', users_total: '2' } })

    // Act + Assess
    expect(await getCounters(tenant)).toEqual({ users_total: 2, users_active: 1 })
    expect(await getCounters(tenant)).toEqual({})
    await expect(getCounters(tenant)).rejects.toBeInstanceOf(MalformedItem)
  })
})
