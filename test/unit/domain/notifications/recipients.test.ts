import { describe, expect, it } from 'vitest'
import {
  addresseeOf,
  addressRecipient,
  tenantContactRecipients,
  userRecipient,
} from '../../../../shared/domain/notifications/recipients.ts'
import type { User } from '../../../../shared/domain/users/user.ts'
import { aUser } from '../../../helpers/builders.ts'

const base = aUser({ id: 'u1', email: 'ada@example.com', locale: 'fr-CA' })

describe('Functions: notification recipients', () => {
  it('reads whom a notification names: an explicit address first, then a user, else the tenant’s contacts', () => {
    expect(addresseeOf({ userId: 'u1', email: 'x@example.com' })).toEqual({
      kind: 'address',
      address: 'x@example.com',
    })
    expect(addresseeOf({ userId: 'u1' })).toEqual({ kind: 'user', userId: 'u1' })
    expect(addresseeOf({ userId: null })).toEqual({ kind: 'tenant_contacts' })
  })

  it('writes to a named user in their locale while active and not erased', () => {
    expect(userRecipient(base)).toEqual({
      key: 'u1',
      address: 'ada@example.com',
      locale: 'fr-CA',
      name: 'Ada',
    })
    expect(userRecipient(undefined)).toBe('user_missing')
    expect(userRecipient({ ...base, isActive: false })).toBe('user_inactive')
    expect(userRecipient({ ...base, erasedAt: '2026-02-01T00:00:00.000Z' })).toBe('user_erased')
  })

  it('gives an explicit address the locale the notification carries, else English', () => {
    expect(addressRecipient('Ops@Example.com', {}).locale).toBe('en')
    expect(addressRecipient('ops@example.com', { locale: 'fr-CA' }).locale).toBe('fr-CA')
    expect(addressRecipient('ops@example.com', { locale: 'de' }).locale).toBe('en')
    expect(addressRecipient('Ops@Example.com', {}).key).toBe('email:ops@example.com')
  })

  it('tells every active owner and admin, and nobody else', () => {
    const users: User[] = [
      { ...base, id: 'owner', role: 'owner' },
      { ...base, id: 'admin', role: 'admin', locale: 'en' },
      { ...base, id: 'off', role: 'admin', isActive: false },
      { ...base, id: 'gone', role: 'owner', erasedAt: '2026-02-01T00:00:00.000Z' },
      { ...base, id: 'manager', role: 'manager' },
    ]

    expect(tenantContactRecipients(users).map((r) => [r.key, r.locale])).toEqual([
      ['owner', 'fr-CA'],
      ['admin', 'en'],
    ])
  })
})
