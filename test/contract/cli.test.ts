import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { client } from '../helpers/http.ts'
import { lms } from '../helpers/cli.ts'

const slug = () => `cli-${randomBytes(4).toString('hex')}`

describe('CLI: tenant and api-key', () => {
  it('creates a tenant, a key that works over HTTP, lists it without the secret and revokes it', async () => {
    const s = slug()
    const tenant = await lms(
      'tenant',
      'create',
      '--slug',
      s,
      '--plan',
      'growth',
      '--kind',
      'sandbox',
      '--name',
      'Acme',
    )
    expect(tenant.code).toBe(0)
    expect(tenant.json).toMatchObject({ slug: s, plan: 'growth', kind: 'sandbox', status: 'active' })
    expect(tenant.json.id).toMatch(/^[0-9a-f-]{36}$/)

    const created = await lms('api-key', 'create', '--tenant', s, '--scopes', 'read,write')
    expect(created.code).toBe(0)
    expect(created.json).toMatchObject({ scopes: ['read', 'write'], expires_at: null })
    // A sandbox's keys are test keys.
    expect(created.json.key).toMatch(/^lms_test_/)
    expect(created.json.prefix).toBe(created.json.key.slice(0, 12))
    expect((await client(s, created.json.key).get('/api/v1/users')).status).toBe(200)

    const listed = await lms('api-key', 'list', '--tenant', s)
    expect(listed.stdout).not.toContain(created.json.key)
    expect(listed.json.data).toHaveLength(1)

    const revoked = await lms('api-key', 'revoke', '--tenant', s, '--id', created.json.id)
    expect(revoked.code).toBe(0)
    expect(Date.parse(revoked.json.revoked_at)).not.toBeNaN()
    expect((await client(s, created.json.key).get('/api/v1/users')).status).toBe(401)
  })

  it('prints an error object and exits non-zero on failure', async () => {
    const s = slug()
    await lms('tenant', 'create', '--slug', s, '--plan', 'free')
    const dup = await lms('tenant', 'create', '--slug', s, '--plan', 'free')
    expect(dup.code).not.toBe(0)
    expect(dup.json.error.code).toBe(409)
    const badPlan = await lms('tenant', 'create', '--slug', slug(), '--plan', 'gold')
    expect(badPlan.json.error).toMatchObject({ code: 400 })
    expect(badPlan.json.error.message).toContain('plan')
    const unknown = await lms('frobnicate')
    expect(unknown.code).not.toBe(0)
    expect(unknown.json.error.code).toBe(400)
  })

  it('updates plan, status and monthly cap', async () => {
    const s = slug()
    await lms('tenant', 'create', '--slug', s, '--plan', 'free')
    const updated = await lms(
      'tenant',
      'update',
      '--tenant',
      s,
      '--plan',
      'growth',
      '--monthly-api-cap',
      '10',
    )
    expect(updated.json).toMatchObject({ plan: 'growth', monthly_api_cap: 10 })
    const suspended = await lms('tenant', 'update', '--tenant', s, '--status', 'suspended')
    expect(suspended.json.status).toBe('suspended')
  })
})

describe('CLI: users on the free plan', () => {
  it('applies the seat cap of 5 active users; inactive creates are never gated', async () => {
    const s = slug()
    await lms('tenant', 'create', '--slug', s, '--plan', 'free')
    const user = (n: number, ...extra: string[]) =>
      lms(
        'user',
        'create',
        '--tenant',
        s,
        '--email',
        `u${n}@x.com`,
        '--first-name',
        'U',
        '--last-name',
        `N${n}`,
        '--role',
        'learner',
        ...extra,
      )
    const results = await Promise.all([1, 2, 3, 4, 5].map((n) => user(n)))
    expect(results.map((r) => r.code)).toEqual([0, 0, 0, 0, 0])
    const sixth = await user(6)
    expect(sixth.code).not.toBe(0)
    expect(sixth.json.error).toMatchObject({
      code: 422,
      entitlement_blocked: {
        code: 'ENTITLEMENT_BLOCKED',
        flag_or_limit: 'seat_cap',
        current_tier: 'free',
        required_tier: 'starter',
      },
    })
    const inactive = await user(7, '--inactive')
    expect(inactive.code).toBe(0)
    expect(inactive.json.is_active).toBe(false)
  })

  it('records a learner login with --at, and refuses an inactive learner', async () => {
    const s = slug()
    await lms('tenant', 'create', '--slug', s, '--plan', 'free')
    const u = await lms(
      'user',
      'create',
      '--tenant',
      s,
      '--email',
      'l@x.com',
      '--first-name',
      'L',
      '--last-name',
      'M',
      '--role',
      'learner',
    )
    const login = await lms(
      'learner',
      'login',
      '--tenant',
      s,
      '--user',
      u.json.id,
      '--at',
      '2026-01-02T03:04:05Z',
    )
    expect(login.json).toEqual({ user_id: u.json.id, last_login_at: '2026-01-02T03:04:05.000Z' })
    const off = await lms(
      'user',
      'create',
      '--tenant',
      s,
      '--email',
      'o@x.com',
      '--first-name',
      'O',
      '--last-name',
      'P',
      '--role',
      'learner',
      '--inactive',
    )
    const refused = await lms('learner', 'login', '--tenant', s, '--user', off.json.id)
    expect(refused.json.error.code).toBe(422)
  })
})
