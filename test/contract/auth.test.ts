import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { updateTenant, revokeApiKey } from '../../shared/services/tenants/tenants-service.ts'
import { listApiKeys } from '../../shared/services/tenants/tenants-service.ts'
import { generateKey } from '../../shared/domain/api-keys/key-format.ts'
import { insertApiKey } from '../../shared/store/tenants/api-keys-store.ts'
import { failedAuthPerIp } from '../../shared/routes.ts'
import { call, client, ownAddress } from '../helpers/http.ts'
import { newTenant } from '../helpers/tenants.ts'

const unauthorized = { data: null, meta: null, error: { code: 401, message: 'Invalid or missing API key' } }

describe('Middleware: tenant from Host', () => {
  it('answers 404 in the envelope for an unknown tenant subdomain', async () => {
    const reply = await call('GET', '/api/v1/users', { host: 'no-such-tenant.localhost' })
    expect(reply.status).toBe(404)
    expect(reply.body).toEqual({ data: null, meta: null, error: { code: 404, message: 'Tenant not found' } })
  })

  it('answers 404 for a host outside the service host', async () => {
    const t = await newTenant()
    const reply = await call('GET', '/api/v1/users', { host: `${t.slug}.elsewhere.test`, key: t.adminKey })
    expect(reply.status).toBe(404)
  })
})

describe('Middleware: API key auth', () => {
  it('refuses a missing header with 401 and WWW-Authenticate: Bearer', async () => {
    const t = await newTenant()
    const reply = await client(t.slug).get('/api/v1/users')
    expect(reply.status).toBe(401)
    expect(reply.headers['www-authenticate']).toBe('Bearer')
    expect(reply.body).toEqual(unauthorized)
  })

  it('matches the Bearer scheme case-insensitively', async () => {
    const t = await newTenant()
    for (const scheme of ['bearer', 'BEARER', 'BeArEr']) {
      const reply = await call('GET', '/api/v1/users', {
        host: `${t.slug}.localhost`,
        headers: { authorization: `${scheme} ${t.adminKey}` },
      })
      expect(reply.status).toBe(200)
    }
  })

  it('refuses other schemes, a mistyped key and a random key with the same 401', async () => {
    const t = await newTenant()
    const last = t.adminKey.at(-1) === 'a' ? 'b' : 'a'
    const mistyped = t.adminKey.slice(0, -1) + last
    const attempts = [
      { authorization: `Basic ${t.adminKey}` },
      { authorization: `Bearer ${mistyped}` },
      { authorization: `Bearer lms_live_${'x'.repeat(38)}` },
      { authorization: 'Bearer' },
    ]
    for (const headers of attempts) {
      const reply = await call('GET', '/api/v1/users', { host: `${t.slug}.localhost`, headers })
      expect(reply.status).toBe(401)
      expect(reply.headers['www-authenticate']).toBe('Bearer')
      expect(reply.body).toEqual(unauthorized)
    }
  })

  it('refuses a key of another tenant with 401', async () => {
    const a = await newTenant()
    const b = await newTenant()
    const reply = await client(a.slug, b.adminKey).get('/api/v1/users')
    expect(reply.status).toBe(401)
    expect(reply.headers['www-authenticate']).toBe('Bearer')
  })

  it('refuses a revoked key on the very next request', async () => {
    const t = await newTenant()
    const key = await t.key(['read'])
    expect((await client(t.slug, key).get('/api/v1/users')).status).toBe(200)
    const record = (await listApiKeys(t.tenant)).find(
      (k) => key.startsWith(k.prefix) && k.scopes.length === 1,
    )
    await revokeApiKey(t.tenant, record?.id ?? '')
    const reply = await client(t.slug, key).get('/api/v1/users')
    expect(reply.status).toBe(401)
  })

  it('refuses an expired key and accepts one not yet expired', async () => {
    const t = await newTenant()
    const expired = await t.key(['read'], { expiresAt: new Date(Date.now() - 1000).toISOString() })
    const valid = await t.key(['read'], { expiresAt: new Date(Date.now() + 3600_000).toISOString() })
    expect((await client(t.slug, expired).get('/api/v1/users')).status).toBe(401)
    expect((await client(t.slug, valid).get('/api/v1/users')).status).toBe(200)
  })

  it('gives a sandbox test keys, whose visible prefix carries the segment, and refuses the other environment', async () => {
    const sandbox = await newTenant('growth', 'sandbox')
    const customer = await newTenant()
    const key = await sandbox.key(['read'])
    expect(key.startsWith('lms_test_')).toBe(true)
    expect(customer.adminKey.startsWith('lms_live_')).toBe(true)
    expect((await client(sandbox.slug, key).get('/api/v1/users')).status).toBe(200)
    await expect(customer.key(['read'], { env: 'test' })).rejects.toThrow(/sandbox/)
    await expect(sandbox.key(['read'], { env: 'live' })).rejects.toThrow(/sandbox/)
  })

  it('refuses with 401 a live key stored for a sandbox (issued before environments followed the tenant)', async () => {
    // Prepare
    const sandbox = await newTenant('growth', 'sandbox')
    const live = generateKey('live')
    await insertApiKey(sandbox.tenant, {
      id: randomUUID(),
      tenantId: sandbox.tenant.id,
      prefix: live.prefix,
      hash: live.hash,
      env: 'live',
      scopes: ['read'],
      expiresAt: null,
      revokedAt: null,
      createdAt: new Date().toISOString(),
    })

    // Act
    const reply = await client(sandbox.slug, live.key).get('/api/v1/users')

    // Assess
    expect(reply.status).toBe(401)
    expect(reply.headers['www-authenticate']).toBe('Bearer')
  })

  it('never echoes the key in a response', async () => {
    const t = await newTenant()
    const reply = await t.api.get('/api/v1/users')
    const other = await client(t.slug, t.adminKey.slice(0, -1) + 'Z').get('/api/v1/users')
    expect(reply.text).not.toContain(t.adminKey)
    expect(other.text).not.toContain(t.adminKey.slice(12))
  })
})

/** Runs `scenario` inside one fixed window of the failed-authentication limit; a run cut by the window's end runs again. */
async function inOneWindow<T>(scenario: () => Promise<T>): Promise<T> {
  const windowOf = () => Math.floor(Date.now() / 1000 / failedAuthPerIp.windowSeconds)
  for (;;) {
    const before = windowOf()
    const result = await scenario()
    if (windowOf() === before) return result
  }
}

describe('Middleware: failed authentications per client address', () => {
  it('answers 429 with Retry-After, before any key read, to an address past the limit of forged but checksummed keys (unauthenticated read flood); a valid key from another address is unaffected', async () => {
    // Prepare
    const t = await newTenant()
    const get = (key: string, localAddress: string) =>
      call('GET', '/api/v1/users', { host: `${t.slug}.localhost`, key, localAddress })

    // Act: every forged key passes the checksum, so each one costs the store a read
    const { failures, blocked, validFromThere, elsewhere } = await inOneWindow(async () => {
      const from = ownAddress()
      const failures = []
      for (let i = 0; i < failedAuthPerIp.limit; i++) failures.push(await get(generateKey('live').key, from))
      const blocked = await get(generateKey('live').key, from)
      const validFromThere = await get(t.adminKey, from)
      const elsewhere = await get(t.adminKey, ownAddress())
      return { failures, blocked, validFromThere, elsewhere }
    })

    // Assess
    expect(failures.map((r) => r.status)).toEqual(failures.map(() => 401))
    expect(blocked.status).toBe(429)
    expect(blocked.body).toEqual({
      data: null,
      meta: null,
      error: { code: 429, message: 'Too many failed authentications from this address' },
    })
    const retryAfter = Number(blocked.headers['retry-after'])
    expect(retryAfter).toBeGreaterThan(0)
    expect(retryAfter).toBeLessThanOrEqual(failedAuthPerIp.windowSeconds)
    expect(validFromThere.status).toBe(429)
    expect(elsewhere.status).toBe(200)
  })

  it('does not count requests refused without a store read (no key, a bad checksum) nor valid ones', async () => {
    // Prepare
    const t = await newTenant()
    const get = (headers: Record<string, string>, localAddress: string) =>
      call('GET', '/api/v1/users', { host: `${t.slug}.localhost`, headers, localAddress })
    const mistyped = t.adminKey.slice(0, -1) + (t.adminKey.at(-1) === 'a' ? 'b' : 'a')

    // Act
    const from = ownAddress()
    const replies = []
    for (let i = 0; i < failedAuthPerIp.limit + 1; i++) {
      replies.push(await get({}, from), await get({ authorization: `Bearer ${mistyped}` }, from))
      replies.push(await get({ authorization: `Bearer ${t.adminKey}` }, from))
    }

    // Assess
    expect(replies.filter((r) => r.status === 429)).toEqual([])
    expect(replies.at(-1)?.status).toBe(200)
  })
})

describe('Middleware: scopes', () => {
  it('refuses a key without read on GET with 403 naming the read scope', async () => {
    const t = await newTenant()
    const key = await t.key(['write'])
    const reply = await client(t.slug, key).get('/api/v1/users')
    expect(reply.status).toBe(403)
    expect(reply.body.error.message).toMatch(/read scope/)
  })

  it('refuses DELETE to a read+write key with 403 naming the admin scope', async () => {
    const t = await newTenant()
    const key = await t.key(['read', 'write'])
    const reply = await client(t.slug, key).delete(`/api/v1/users/${randomUUID()}`)
    expect(reply.status).toBe(403)
    expect(reply.body.error.message).toMatch(/admin scope/)
  })

  it('refuses POST to a read-only key with 403 naming the write scope', async () => {
    const t = await newTenant()
    const key = await t.key(['read'])
    const reply = await client(t.slug, key).post('/api/v1/groups', { name: 'x' })
    expect(reply.status).toBe(403)
    expect(reply.body.error.message).toMatch(/write scope/)
  })
})

describe('Middleware: plan entitlements', () => {
  for (const plan of ['free', 'starter'] as const) {
    it(`refuses the ${plan} plan (no API access) with 403 and entitlement_blocked`, async () => {
      const t = await newTenant(plan)
      const reply = await t.api.get('/api/v1/users')
      expect(reply.status).toBe(403)
      expect(reply.body.data).toBeNull()
      expect(reply.body.error).toMatchObject({
        code: 403,
        entitlement_blocked: {
          code: 'ENTITLEMENT_BLOCKED',
          flag_or_limit: 'api_access',
          current_tier: plan,
          required_tier: 'growth',
        },
      })
    })
  }

  it('lets an upgraded tenant in on the next request', async () => {
    const t = await newTenant('starter')
    expect((await t.api.get('/api/v1/users')).status).toBe(403)
    await updateTenant(t.slug, { plan: 'enterprise' })
    expect((await t.api.get('/api/v1/users')).status).toBe(200)
  })

  it('refuses a suspended tenant with 403', async () => {
    const t = await newTenant()
    await updateTenant(t.slug, { status: 'suspended' })
    const reply = await t.api.get('/api/v1/users')
    expect(reply.status).toBe(403)
    expect(reply.body.error.message).toMatch(/suspended/)
  })
})
