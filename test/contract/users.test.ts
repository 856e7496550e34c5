import { describe, expect, it } from 'vitest'
import { newTenant, userBody } from '../helpers/tenants.ts'

describe('Route: GET /api/v1/users/{id}', () => {
  it('returns a created user in the envelope, and 404 for another tenant', async () => {
    // Prepare
    const a = await newTenant()
    const b = await newTenant()
    const created = await a.api.post('/api/v1/users', userBody({ email: 'Grace@Example.com' }))

    // Act
    const got = await a.api.get(`/api/v1/users/${created.body.data.id}`)
    const cross = await b.api.get(`/api/v1/users/${created.body.data.id}`)

    // Assess
    expect(created.status).toBe(201)
    expect(got.status).toBe(200)
    expect(got.body).toMatchObject({
      meta: null,
      error: null,
      data: { id: created.body.data.id, email: 'grace@example.com' },
    })
    expect(cross.status).toBe(404)
    expect(cross.body).toEqual({ data: null, meta: null, error: { code: 404, message: 'User not found' } })
  })
})
