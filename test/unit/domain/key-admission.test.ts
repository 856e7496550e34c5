import { describe, expect, it } from 'vitest'
import { keyAdmits, type KeyStanding } from '../../../shared/domain/api-keys/key-admission.ts'
import { generateKey, hashKey } from '../../../shared/domain/api-keys/key-format.ts'

const tenant = { id: 'tenant-1', kind: 'customer' } as const
const now = Date.parse('2026-03-01T12:00:00.000Z')
const presented = generateKey('live')
const stored: KeyStanding = {
  hash: presented.hash,
  tenantId: tenant.id,
  env: 'live',
  expiresAt: null,
  revokedAt: null,
}

describe('Function: keyAdmits', () => {
  it('admits a live, unexpired, unrevoked key of the very tenant', () => {
    expect(keyAdmits(stored, presented.hash, tenant, now)).toBe(true)
    expect(keyAdmits({ ...stored, expiresAt: '2026-03-01T12:00:01.000Z' }, presented.hash, tenant, now)).toBe(
      true,
    )
  })

  it('refuses a revoked key, an expired one (at its expiry instant too) and another key’s hash', () => {
    expect(keyAdmits({ ...stored, revokedAt: '2026-02-01T00:00:00.000Z' }, presented.hash, tenant, now)).toBe(
      false,
    )
    expect(keyAdmits({ ...stored, expiresAt: '2026-03-01T12:00:00.000Z' }, presented.hash, tenant, now)).toBe(
      false,
    )
    expect(keyAdmits(stored, hashKey(generateKey('live').key), tenant, now)).toBe(false)
  })

  it('refuses a key of another tenant, and a key of the other environment', () => {
    expect(keyAdmits(stored, presented.hash, { ...tenant, id: 'tenant-2' }, now)).toBe(false)
    expect(keyAdmits(stored, presented.hash, { ...tenant, kind: 'sandbox' }, now)).toBe(false)
    expect(keyAdmits({ ...stored, env: 'test' }, presented.hash, tenant, now)).toBe(false)
    expect(keyAdmits({ ...stored, env: 'test' }, presented.hash, { ...tenant, kind: 'sandbox' }, now)).toBe(
      true,
    )
  })
})
