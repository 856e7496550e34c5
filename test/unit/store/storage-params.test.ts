import { describe, expect, it } from 'vitest'
import type { TenantContext } from '../../../shared/domain/tenants/tenant.ts'
import { packageSizeSteps } from '../../../shared/store/files/storage-store.ts'
import { readable } from '../../helpers/readable-expression.ts'

const tenant: TenantContext = { id: 't1', plan: 'free' }
const at = '2026-11-23T00:00:00.000Z'

describe('Functions: package sizes against the storage cap', () => {
  it('records a first package only if none was recorded, and adds its size under the cap', () => {
    const [record, counter] = packageSizeSteps(tenant, {
      moduleId: 'm1',
      before: undefined,
      after: 300,
      capBytes: 1000,
      at,
    })
    expect(record?.item.Update?.Key).toEqual({ pk: 'T#t1', sk: 'PKGSIZE#m1' })
    expect(readable('ConditionExpression', record?.item.Update)).toBe('attribute_not_exists(pk)')
    expect(record?.refusal).toBe('stale')
    expect(counter?.item.Update?.Key).toEqual({ pk: 'T#t1', sk: 'COUNTERS' })
    expect(readable('UpdateExpression', counter?.item.Update)).toBe('ADD storage_bytes 300')
    expect(readable('ConditionExpression', counter?.item.Update)).toBe(
      '(attribute_not_exists(storage_bytes)) OR (storage_bytes <= 700)',
    )
    expect(counter?.refusal).toBe('storage_cap')
  })

  it('moves a replacement by the difference, conditioned on the size as read; shrinking needs no room', () => {
    const [record, counter] = packageSizeSteps(tenant, {
      moduleId: 'm1',
      before: 300,
      after: 100,
      capBytes: 1000,
      at,
    })
    expect(readable('ConditionExpression', record?.item.Update)).toBe('bytes = 300')
    expect(readable('UpdateExpression', counter?.item.Update)).toBe('ADD storage_bytes -200')
    expect(counter?.item.Update?.ConditionExpression).toBeUndefined()
    expect(counter?.refusal).toBeUndefined()
  })

  it('checks nothing on an unlimited plan, and moves no counter for a same-size replacement', () => {
    const [, counter] = packageSizeSteps(tenant, { moduleId: 'm1', before: 1, after: 9, capBytes: null, at })
    expect(counter?.item.Update?.ConditionExpression).toBeUndefined()
    expect(packageSizeSteps(tenant, { moduleId: 'm1', before: 5, after: 5, capBytes: 10, at })).toHaveLength(
      1,
    )
  })

  it('gives a reservation back by deleting the record it made', () => {
    const [record, counter] = packageSizeSteps(tenant, {
      moduleId: 'm1',
      before: 300,
      after: undefined,
      capBytes: null,
      at,
    })
    expect(record?.item.Delete?.Key).toEqual({ pk: 'T#t1', sk: 'PKGSIZE#m1' })
    expect(readable('ConditionExpression', record?.item.Delete)).toBe('bytes = 300')
    expect(readable('UpdateExpression', counter?.item.Update)).toBe('ADD storage_bytes -300')
  })
})
