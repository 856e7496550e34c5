/**
 * GET /api/v1/billing/metrics, as the billing orchestrator calls it: the platform secret as a
 * Bearer token, the tenant by id, the billable quantity kept as people sign in.
 */
import { randomUUID } from 'node:crypto'
import { describe, expect, inject, it } from 'vitest'
import { lms } from '../helpers/cli.ts'
import { call, type CallOptions } from '../helpers/http.ts'
import { newTenant, userBody, type TestTenant } from '../helpers/tenants.ts'

const secret = inject('platformMetricsSecret')
const path = (query: string) => `/api/v1/billing/metrics${query}`
const metrics = (query: string, o: CallOptions = {}) =>
  call('GET', path(query), { headers: { authorization: `Bearer ${secret}` }, ...o })

async function person(t: TestTenant): Promise<string> {
  const res = await t.api.post('/api/v1/users', userBody())
  expect(res.status).toBe(201)
  return res.body.data.id as string
}

const login = async (t: TestTenant, userId: string, ...at: string[]) => {
  const res = await lms(
    'learner',
    'login',
    '--tenant',
    t.slug,
    '--user',
    userId,
    ...(at.length ? ['--at', ...at] : []),
  )
  expect(res.code, res.stdout).toBe(0)
}

const firstOfThisMonth = () => {
  const d = new Date()
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1)).toISOString()
}

describe('Billing metrics: the platform secret', () => {
  it('answers 401 without it, with a wrong one, or with a tenant API key, before looking at the tenant', async () => {
    const t = await newTenant('growth')
    const q = `?tenantId=${t.tenant.id}`
    const refusals = [
      await call('GET', path(q)),
      await call('GET', path(q), { headers: { authorization: `Bearer ${secret}x` } }),
      await call('GET', path(q), { headers: { authorization: `Basic ${secret}` } }),
      await call('GET', path(q), { key: t.adminKey }),
      // Without a tenant id either: the missing secret is what is answered, nothing about the query.
      await call('GET', path('')),
    ]
    for (const res of refusals) {
      expect(res.status).toBe(401)
      expect(res.headers['www-authenticate']).toBe('Bearer')
      expect(res.body).toEqual({
        data: null,
        meta: null,
        error: { code: 401, message: 'Invalid or missing platform secret' },
      })
    }
  })
})

describe('Billing metrics: which tenant', () => {
  it('answers 400 naming tenantId when it is missing, not a UUID, or contradicted by its alias', async () => {
    const t = await newTenant('growth')
    for (const q of [
      '',
      '?tenantId=',
      '?tenantId=acme',
      `?tenantId=${t.tenant.id}&service_tenant_id=${randomUUID()}`,
    ]) {
      const res = await metrics(q)
      expect(res.status, q).toBe(400)
      expect(res.body.error.message, q).toMatch(/tenantId/)
    }
  })

  it('answers 404 for a tenant that does not exist', async () => {
    const res = await metrics(`?tenantId=${randomUUID()}`)
    expect(res.status).toBe(404)
    expect(res.body.error.message).toBe('Tenant not found')
  })

  it('answers 409 naming the kind for demo, sandbox and training tenants, which are never billed', async () => {
    for (const kind of ['demo', 'sandbox', 'training']) {
      const t = await newTenant('growth', kind)
      const res = await metrics(`?tenantId=${t.tenant.id}`)
      expect(res.status, kind).toBe(409)
      expect(res.body.error.message, kind).toContain(`kind ${kind}`)
    }
  })

  it('accepts service_tenant_id as an alias of tenantId', async () => {
    const t = await newTenant('growth')
    const res = await metrics(`?service_tenant_id=${t.tenant.id}`)
    expect(res.status).toBe(200)
    expect(res.body.data.tenantId).toBe(t.tenant.id)
  })
})

describe('Billing metrics: the figures', () => {
  it('counts each active person who signed in during the period once, and every provisioned active account', async () => {
    // Prepare: three active people, one more deactivated from the start
    const t = await newTenant('growth')
    const [a, b, c] = [await person(t), await person(t), await person(t)]
    await t.api.post('/api/v1/users', userBody({ is_active: false }))

    // Act: a signs in twice, b once, c never
    await login(t, a)
    await login(t, a)
    await login(t, b)
    const res = await metrics(`?tenantId=${t.tenant.id}`)

    // Assess
    expect(res.status).toBe(200)
    expect(res.headers['cache-control']).toBe('no-store')
    expect(res.body.meta).toBeNull()
    expect(res.body.error).toBeNull()
    expect(Object.keys(res.body.data).sort()).toEqual(
      [
        'activeUsersInPeriod',
        'activeUsersThisMonth',
        'asOf',
        'licensedUsers',
        'periodStart',
        'slug',
        'status',
        'tenantId',
      ].sort(),
    )
    expect(res.body.data).toMatchObject({
      tenantId: t.tenant.id,
      slug: t.slug,
      status: 'active',
      activeUsersInPeriod: 2,
      activeUsersThisMonth: 2,
      licensedUsers: 3,
      periodStart: firstOfThisMonth(),
    })
    expect(Math.abs(Date.parse(res.body.data.asOf) - Date.now())).toBeLessThan(10 * 60_000)
    expect(c).toBeTypeOf('string')
  })

  it('leaves a deactivated person out of the period and counts them again when reactivated', async () => {
    const t = await newTenant('growth')
    const [a, b] = [await person(t), await person(t)]
    await login(t, a)
    await login(t, b)

    expect((await t.api.delete(`/api/v1/users/${b}`)).status).toBe(204)
    const off = (await metrics(`?tenantId=${t.tenant.id}`)).body.data
    expect([off.activeUsersInPeriod, off.licensedUsers]).toEqual([1, 1])

    expect((await t.api.patch(`/api/v1/users/${b}`, { is_active: true })).status).toBe(200)
    const on = (await metrics(`?tenantId=${t.tenant.id}`)).body.data
    expect([on.activeUsersInPeriod, on.licensedUsers]).toEqual([2, 2])
  })

  it('uses the reported subscription period: sign-ins before its start are not in it', async () => {
    const t = await newTenant('growth')
    const [a, b, c] = [await person(t), await person(t), await person(t)]
    const set = await lms('tenant', 'update', '--tenant', t.slug, '--period-start', '2026-01-15T00:00:00Z')
    expect(set.json.period_start).toBe('2026-01-15T00:00:00.000Z')

    await login(t, a, '2026-01-10T09:00:00Z') // before the period
    await login(t, b, '2026-01-16T09:00:00Z') // inside it
    await login(t, c, '2026-02-02T09:00:00Z') // inside it (the period runs until the next is reported)
    const data = (await metrics(`?tenantId=${t.tenant.id}`)).body.data
    expect(data.periodStart).toBe('2026-01-15T00:00:00.000Z')
    expect(data.activeUsersInPeriod).toBe(2)

    const cleared = await lms('tenant', 'update', '--tenant', t.slug, '--period-start', 'none')
    expect(cleared.json.period_start).toBeNull()
    expect((await metrics(`?tenantId=${t.tenant.id}`)).body.data.periodStart).toBe(firstOfThisMonth())
  })

  it('refuses a period start that is not a timestamp, naming it, and changes nothing', async () => {
    const t = await newTenant('growth')
    const res = await lms('tenant', 'update', '--tenant', t.slug, '--period-start', 'last tuesday')
    expect(res.code).not.toBe(0)
    expect(JSON.stringify(res.json)).toContain('period_start')
    expect((await lms('tenant', 'get', '--tenant', t.slug)).json.period_start).toBeNull()
  })

  it('changes nothing by reading: the same figures twice, the tenant untouched', async () => {
    const t = await newTenant('growth')
    await login(t, await person(t))
    const before = (await lms('tenant', 'get', '--tenant', t.slug)).json
    const first = (await metrics(`?tenantId=${t.tenant.id}`)).body.data
    const second = (await metrics(`?tenantId=${t.tenant.id}`)).body.data
    expect({ ...second, asOf: undefined }).toEqual({ ...first, asOf: undefined })
    expect((await lms('tenant', 'get', '--tenant', t.slug)).json).toEqual(before)
  })

  it('announces activeUsersThisMonth as deprecated with Deprecation, Sunset and a Link', async () => {
    const t = await newTenant('growth')
    const res = await metrics(`?tenantId=${t.tenant.id}`)
    expect(res.headers.deprecation).toMatch(/^@\d+$/)
    expect(
      Date.parse(String(res.headers.sunset)) - Number(String(res.headers.deprecation).slice(1)) * 1000,
    ).toBeGreaterThanOrEqual(365 * 86_400_000)
    expect(res.headers.link).toMatch(/rel="deprecation"/)
  })

  it('is left out of the public API description', async () => {
    const docs = await call('GET', '/api/v1/docs')
    expect(docs.status).toBe(200)
    expect(Object.keys(docs.body.data.paths)).not.toContain('/api/v1/billing/metrics')
    expect(Object.keys(docs.body.data.paths)).toContain('/api/v1/plans')
  })
})
