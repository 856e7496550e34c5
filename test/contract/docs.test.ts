import { describe, expect, it } from 'vitest'
import { routes } from '../../shared/routes.ts'
import { call } from '../helpers/http.ts'

describe('Route: GET /api/v1/docs', () => {
  it('describes every public route of the table (not the server-to-server ones), publicly, as OpenAPI 3.1', async () => {
    const reply = await call('GET', '/api/v1/docs')
    expect(reply.status).toBe(200)
    expect(reply.headers['cache-control']).toBe('max-age=300')
    const doc = reply.body.data
    expect(doc.openapi).toBe('3.1.0')
    for (const r of routes.filter((x) => x.method !== 'OPTIONS')) {
      const op = doc.paths[r.path]?.[r.method.toLowerCase()]
      if (r.internal) {
        expect(op, `${r.method} ${r.path}`).toBeUndefined()
        continue
      }
      expect(op, `${r.method} ${r.path}`).toBeDefined()
      if (r.scope) expect(op['x-required-scope']).toBe(r.scope)
    }
    expect(routes.some((r) => r.internal)).toBe(true)
  })

  it('documents request bodies from the schemas the handlers validate with', async () => {
    const doc = (await call('GET', '/api/v1/docs')).body.data
    const createUser = doc.paths['/api/v1/users'].post.requestBody.content['application/json'].schema
    expect(createUser.required).toEqual(expect.arrayContaining(['email', 'first_name', 'last_name', 'role']))
    expect(createUser.properties.role.enum).toContain('author')
    const bulk = doc.paths['/api/v1/enrollments/bulk'].post.requestBody.content['application/json'].schema
    expect(bulk.properties.enrollments.maxItems).toBe(500)
    const listUsers = doc.paths['/api/v1/users'].get.parameters.map((p: { name: string }) => p.name)
    expect(listUsers).toEqual(expect.arrayContaining(['role', 'is_active', 'group_id', 'page', 'per_page']))
  })
})
