import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { call } from '../helpers/http.ts'
import { newTenant } from '../helpers/tenants.ts'

describe('Route: $default (no matching route)', () => {
  it('answers 404 in the envelope for an unknown path and an unknown method', async () => {
    const t = await newTenant()
    for (const [method, path] of [
      ['GET', '/api/v1/nothing-here'],
      ['PUT', '/api/v1/users'],
      ['GET', '/api/v2/users'],
      ['GET', '/api/v1/users/'],
    ] as const) {
      const reply = await call(method, path, { host: `${t.slug}.localhost`, key: t.adminKey })
      expect(reply.status, `${method} ${path}`).toBe(404)
      expect(reply.body.data).toBeNull()
      expect(reply.body.error.code).toBe(404)
    }
  })

  it('answers 404 for the three unavailable endpoints, pointing to what to use', async () => {
    const t = await newTenant()
    const enrollments = await t.api.get(`/api/v1/users/${randomUUID()}/enrollments`)
    const bulk = await t.api.post('/api/v1/users/bulk', { users: [] })
    const token = await t.api.post('/api/v1/auth/token', { grant_type: 'client_credentials' })
    expect([enrollments.status, bulk.status, token.status]).toEqual([404, 404, 404])
    expect(enrollments.body.error.message).toContain('/api/v1/enrollments?user_id=')
    expect(bulk.body).toMatchObject({ data: null, meta: null, error: { code: 404 } })
    expect(token.body).toMatchObject({ data: null, meta: null, error: { code: 404 } })
  })
})
