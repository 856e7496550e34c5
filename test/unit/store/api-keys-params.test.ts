import { describe, expect, it } from 'vitest'
import type { TenantContext } from '../../../shared/domain/tenants/tenant.ts'
import {
  apiKeyByHashGetParams,
  apiKeysQueryParams,
  insertApiKeySteps,
  revokeApiKeySteps,
  type ApiKeyRecord,
} from '../../../shared/store/tenants/api-keys-store.ts'
import { readable } from '../../helpers/readable-expression.ts'

const at = '2026-03-01T10:00:00.000Z'
const tenant: TenantContext = { id: 't1', plan: 'growth' }

describe('Functions: API keys', () => {
  const record: ApiKeyRecord = {
    id: 'k1',
    tenantId: 't1',
    prefix: 'lms_live_abc',
    hash: 'ff00',
    env: 'live',
    scopes: ['read'],
    expiresAt: null,
    revokedAt: null,
    createdAt: at,
  }

  it('reads a key by its hash strongly consistent, and lists the tenant own keys', () => {
    expect(apiKeyByHashGetParams('ff00')).toEqual({
      Key: { pk: 'APIKEY#ff00', sk: 'APIKEY' },
      ConsistentRead: true,
    })
    expect(readable('KeyConditionExpression', apiKeysQueryParams(tenant))).toBe(
      '(pk = "T#t1") AND (begins_with(sk, "APIKEYREF#"))',
    )
  })

  it('writes the lookup item and the listing item of a key together', () => {
    const steps = insertApiKeySteps(tenant, record)
    expect(steps.map((s) => [s.item.Put?.Item?.pk, s.item.Put?.Item?.sk])).toEqual([
      ['APIKEY#ff00', 'APIKEY'],
      ['T#t1', 'APIKEYREF#k1'],
    ])
    expect(steps[0]?.item.Put?.Item).toMatchObject({ tenant_id: 't1', scopes: ['read'] })
    // A key not revoked and without an expiry stores neither date (0035): absent reads as null.
    expect(steps[0]?.item.Put?.Item).not.toHaveProperty('revoked_at')
    expect(steps[0]?.item.Put?.Item).not.toHaveProperty('expires_at')
  })

  it('revokes both items only while they exist, each refused as gone', () => {
    const steps = revokeApiKeySteps(tenant, record, at)
    expect(steps.map((s) => s.refusal)).toEqual(['gone', 'gone'])
    expect(steps.map((s) => s.item.Update?.Key?.sk)).toEqual(['APIKEYREF#k1', 'APIKEY'])
    expect(readable('UpdateExpression', steps[0]?.item.Update)).toBe(`SET revoked_at = "${at}"`)
    expect(readable('ConditionExpression', steps[1]?.item.Update)).toBe('attribute_exists(pk)')
  })
})
