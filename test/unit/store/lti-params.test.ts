import { describe, expect, it } from 'vitest'
import type { LtiRegistration } from '../../../shared/domain/lti/lti.ts'
import type { TenantContext } from '../../../shared/domain/tenants/tenant.ts'
import { keys } from '../../../shared/store/core/keys.ts'
import { keyRingParams, type KeyRing, type StoredToolKey } from '../../../shared/store/lti/lti-keys-store.ts'
import { ltiParams } from '../../../shared/store/lti/lti-store.ts'
import { readable, rendered } from '../../helpers/readable-expression.ts'

const tenant: TenantContext = { id: 't1', plan: 'growth' }

const registration: LtiRegistration = {
  id: 'r1',
  issuer: 'https://canvas.example.com',
  clientId: 'c1',
  jwksUrl: 'https://canvas.example.com/jwks',
  authUrl: 'https://canvas.example.com/auth',
  tokenUrl: null,
  deepLinking: true,
  isActive: true,
  createdAt: '2026-03-01T10:00:00.000Z',
}

const toolKey = (kid: string): StoredToolKey => ({
  kid,
  publicJwk: '{"kty":"RSA"}',
  sealedPrivateJwk: 'v2.x.y.z',
  createdAt: '2026-03-01T10:00:00.000Z',
})

describe('LTI registration params', () => {
  it('writes the registration and its (issuer, client id) guard, each only if absent, naming the refusal', () => {
    // Act
    const [reg, guard] = ltiParams.insertRegistration(tenant, registration)

    // Assess
    expect(reg?.item.Put?.Item).toMatchObject({ pk: 'T#t1', sk: 'LTIREG#r1', issuer: registration.issuer })
    expect(reg?.refusal).toBe('id_taken')
    expect(guard?.item.Put?.Item).toMatchObject({
      ...keys.ltiClient(tenant, registration.issuer, 'c1'),
      registration_id: 'r1',
    })
    expect(readable('ConditionExpression', guard?.item.Put)).toBe('attribute_not_exists(pk)')
    expect(guard?.refusal).toBe('registration_exists')
  })

  it('hashes issuer and client id into the guard key, so any character is safe and one issuer is a prefix', () => {
    // Act
    const k = keys.ltiClient(tenant, 'https://x.example/#a', 'client#1')

    // Assess
    expect(k.sk).toMatch(/^LTIISS#[0-9a-f]{40}#[0-9a-f]{40}$/)
    expect(k.sk.startsWith(keys.ltiIssuerPrefix('https://x.example/#a'))).toBe(true)
    const q = ltiParams.clientsOfIssuer(tenant, 'https://x.example/#a')
    expect(rendered(q.KeyConditionExpression, q)).toBe(
      `(pk = "T#t1") AND (begins_with(sk, "${keys.ltiIssuerPrefix('https://x.example/#a')}"))`,
    )
  })

  it('deactivates an existing registration only', () => {
    // Act
    const p = ltiParams.deactivate(tenant, 'r1')

    // Assess
    expect(p.Key).toEqual({ pk: 'T#t1', sk: 'LTIREG#r1' })
    expect(rendered(p.UpdateExpression, p)).toBe('SET is_active = false')
    expect(rendered(p.ConditionExpression, p)).toBe('attribute_exists(pk)')
  })
})

describe('LTI login state params', () => {
  it('stores state and nonce with a TTL', () => {
    // Act
    const p = ltiParams.putLoginState(tenant, {
      state: 's1',
      nonce: 'n1',
      registrationId: 'r1',
      redirectKind: 'launch',
      expiresEpoch: 1000,
    })

    // Assess
    expect(p.Item).toMatchObject({
      pk: 'T#t1',
      sk: 'LTISTATE#s1',
      nonce: 'n1',
      ttl: 1000,
      expires_epoch: 1000,
    })
  })

  it('uses a state up with one conditional delete: present, same nonce, not expired', () => {
    // Act
    const p = ltiParams.consumeLoginState(tenant, 's1', 'n1', 900)

    // Assess
    expect(p.Key).toEqual({ pk: 'T#t1', sk: 'LTISTATE#s1' })
    expect(rendered(p.ConditionExpression, p)).toBe(
      '(attribute_exists(pk)) AND (nonce = "n1") AND (expires_epoch > 900)',
    )
    expect(p.ReturnValues).toBe('ALL_OLD')
  })

  it('links a platform user once', () => {
    // Act
    const p = ltiParams.linkIdentity(tenant, 'https://iss', 'sub-1', 'u1', 'now')

    // Assess
    expect(p.Item).toMatchObject({ ...keys.ltiIdentity(tenant, 'https://iss', 'sub-1'), user_id: 'u1' })
    expect(rendered(p.ConditionExpression, p)).toBe('attribute_not_exists(pk)')
  })
})

describe('LTI key ring params', () => {
  const ring: KeyRing = { currentKid: 'k1', nextKid: 'k2', retiredKids: ['k0', 'k-1'], version: 4 }

  it('makes the first ring only if there is none', () => {
    // Act
    const [key, made] = keyRingParams.create(tenant, toolKey('k1'))

    // Assess
    expect(key?.item.Put?.Item).toMatchObject({ sk: 'LTIKEY#k1', sealed_private_jwk: 'v2.x.y.z' })
    expect(made?.item.Put?.Item).toMatchObject({
      sk: 'LTIKEYRING',
      current_kid: 'k1',
      retired_kids: [],
      version: 1,
    })
    // No next key yet: nothing is stored for it (0035).
    expect(made?.item.Put?.Item).not.toHaveProperty('next_kid')
    expect(readable('ConditionExpression', made?.item.Put)).toBe('attribute_not_exists(pk)')
    expect(made?.refusal).toBe('keys_exist')
  })

  it('promotes the next key on the version it read, keeping two retired keys published', () => {
    // Act
    const [step] = keyRingParams.promote(tenant, ring, 'k2')

    // Assess
    expect(readable('UpdateExpression', step?.item.Update)).toBe(
      'SET current_kid = "k2", retired_kids = ["k1","k0"], version = 5 REMOVE next_kid',
    )
    expect(readable('ConditionExpression', step?.item.Update)).toBe('version = 4')
    expect(step?.refusal).toBe('stale')
  })
})
