import { describe, expect, it } from 'vitest'
import { call, client } from '../helpers/http.ts'
import { newTenant } from '../helpers/tenants.ts'

const corporate = 'https://www.example.com'

describe('Route: GET /api/v1/plans', () => {
  it('lists the four plans in order, publicly, with caching and the envelope', async () => {
    const reply = await call('GET', '/api/v1/plans')
    expect(reply.status).toBe(200)
    expect(reply.headers['cache-control']).toBe('max-age=300')
    expect(reply.body.meta).toBeNull()
    expect(reply.body.error).toBeNull()
    expect(reply.body.data.map((p: { id: string }) => p.id)).toEqual([
      'free',
      'starter',
      'growth',
      'enterprise',
    ])
  })

  it('prices paid plans in CAD cents with the annual cycle 20% below monthly, and custom enterprise', async () => {
    const { body } = await call('GET', '/api/v1/plans')
    const [free, starter, growth, enterprise] = body.data
    expect(free).toMatchObject({
      pricePerActiveUserCents: 0,
      pricePerActiveUserCentsMonthly: 0,
      pricePerActiveUserCentsAnnual: 0,
      seatCap: 5,
      courseCap: 3,
      storageCapMb: 1024,
      apiMonthlyCap: 0,
    })
    for (const paid of [starter, growth]) {
      expect(paid.pricePerActiveUserCentsAnnual).toBe(Math.round(paid.pricePerActiveUserCentsMonthly * 0.8))
      expect(paid.pricePerActiveUserCents).toBe(paid.pricePerActiveUserCentsAnnual)
      expect(paid.seatCap).toBeNull()
      expect(paid.courseCap).toBeNull()
    }
    expect(starter.storageCapMb).toBe(51200)
    expect(starter.apiMonthlyCap).toBe(0)
    expect(growth.storageCapMb).toBeNull()
    expect(enterprise).toMatchObject({
      pricePerActiveUserCents: null,
      pricePerActiveUserCentsMonthly: null,
      pricePerActiveUserCentsAnnual: null,
      apiMonthlyCap: null,
    })
    for (const plan of body.data) {
      expect(typeof plan.displayName).toBe('string')
      expect(typeof plan.displayNameFr).toBe('string')
      expect(Array.isArray(plan.highlights)).toBe(true)
    }
  })

  it('lists as capabilities exactly what the server enforces for API access', async () => {
    const { body } = await call('GET', '/api/v1/plans')
    for (const plan of body.data as {
      id: 'free' | 'starter' | 'growth' | 'enterprise'
      capabilities: string[]
    }[]) {
      const t = await newTenant(plan.id)
      const status = (await t.api.get('/api/v1/users')).status
      expect(status, plan.id).toBe(plan.capabilities.includes('api_access') ? 200 : 403)
    }
  })

  it('opens cross-origin reads to the corporate origin only', async () => {
    const allowed = await call('GET', '/api/v1/plans', { headers: { origin: corporate } })
    const other = await call('GET', '/api/v1/plans', { headers: { origin: 'https://evil.example' } })
    expect(allowed.headers['access-control-allow-origin']).toBe(corporate)
    expect(other.headers['access-control-allow-origin']).toBeUndefined()
    const preflight = await call('OPTIONS', '/api/v1/plans', {
      headers: { origin: corporate, 'access-control-request-method': 'GET' },
    })
    expect(preflight.status).toBe(204)
    expect(preflight.headers['access-control-allow-origin']).toBe(corporate)
    expect(preflight.headers['access-control-allow-methods']).toContain('GET')
    const refused = await call('OPTIONS', '/api/v1/plans', { headers: { origin: 'https://evil.example' } })
    expect(refused.headers['access-control-allow-origin']).toBeUndefined()
  })

  it('answers on a tenant host too, without a key and without rate-limit headers', async () => {
    const t = await newTenant()
    const reply = await client(t.slug).get('/api/v1/plans')
    expect(reply.status).toBe(200)
    expect(reply.headers['x-ratelimit-limit']).toBeUndefined()
  })
})
