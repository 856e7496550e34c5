import { describe, expect, it } from 'vitest'
import { routes } from '../../shared/routes.ts'
import { call } from '../helpers/http.ts'
import { generatedTypes, redoclyLint } from '../helpers/openapi-checks.ts'

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

describe('Route: GET /api/v1/openapi.json', () => {
  it('serves the OpenAPI 3.1 document itself, without a key or the envelope, cacheable for five minutes', async () => {
    const reply = await call('GET', '/api/v1/openapi.json')
    expect(reply.status).toBe(200)
    expect(reply.headers['content-type']).toBe('application/json')
    expect(reply.headers['cache-control']).toBe('public, max-age=300')
    expect(reply.body.openapi).toBe('3.1.0')
    expect(reply.body.data).toBeUndefined()
    expect(reply.body.paths['/api/v1/openapi.json'].get.security).toEqual([])
    expect(reply.body).toEqual((await call('GET', '/api/v1/docs')).body.data)
  })

  it("passes Redocly's recommended ruleset with no error, and types every 2xx data for openapi-typescript", async () => {
    const served = (await call('GET', '/api/v1/openapi.json')).body
    expect((await redoclyLint(served)).errors).toBe(0)
    expect((await generatedTypes(served)).unknownData).toEqual([])
  }, 60_000)

  it('gives every operation its summary, its success answers and each error as the error envelope', async () => {
    const doc = (await call('GET', '/api/v1/openapi.json')).body
    const createUser = doc.paths['/api/v1/users'].post
    expect(createUser.summary).toBe('Create a user')
    expect(createUser.security).toEqual([{ apiKey: [] }])
    expect(Object.keys(createUser.responses)).toEqual(
      expect.arrayContaining(['201', '400', '401', '403', '409', '422', '429']),
    )
    expect(createUser.responses['400']).toEqual({ $ref: '#/components/responses/Error400' })
    const created = createUser.responses['201'].content['application/json'].schema.properties.data
    expect(created.properties.first_name).toEqual({ type: 'string' })
    expect(Object.keys(doc.webhooks)).toContain('enrollment.created')
  })
})
