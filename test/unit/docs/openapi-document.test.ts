import { describe, expect, it } from 'vitest'
import { buildOpenApiDocument } from '../../../functions/docs/openapi-document.ts'
import { routeKey, routes } from '../../../shared/routes.ts'
import { eventCatalog } from '../../../shared/domain/webhooks/webhook.ts'
import { generatedTypes, redoclyLint } from '../../helpers/openapi-checks.ts'

type Operation = {
  operationId: string
  summary: string
  tags: string[]
  security: unknown[]
  responses: Record<
    string,
    { content?: Record<string, { schema: { properties?: Record<string, unknown> } }> }
  >
}

const doc = buildOpenApiDocument('lms.test') as {
  paths: Record<string, Record<string, Operation>>
  webhooks: Record<string, { post: { parameters: { name: string }[] } }>
}
const described = routes.filter((r) => r.method !== 'OPTIONS' && !r.internal)

describe('the OpenAPI document', () => {
  it('describes every public route with an operation id, a summary, a tag and its security', () => {
    const ids = new Set<string>()
    for (const r of described) {
      const op = doc.paths[r.path]?.[r.method.toLowerCase()]
      expect(op, routeKey(r)).toBeDefined()
      if (!op) continue
      expect(op.summary.length).toBeGreaterThan(0)
      expect(op.tags).toHaveLength(1)
      expect(op.security).toEqual(r.scope === null ? [] : [{ apiKey: [] }])
      ids.add(op.operationId)
    }
    expect(ids.size).toBe(described.length)
  })

  it('answers every keyed route with its data schema and each error status as the error envelope', () => {
    const getUser = doc.paths['/api/v1/users/{id}']?.get
    const data = getUser?.responses['200']?.content?.['application/json']?.schema.properties?.data
    expect(data).toMatchObject({
      type: 'object',
      required: expect.arrayContaining(['id', 'email', 'custom_roles']),
    })
    expect(Object.keys(getUser?.responses ?? {})).toEqual(['200', '401', '403', '404', '429', '500', '503'])
    const list = doc.paths['/api/v1/users']?.get?.responses['200']?.content?.['application/json']?.schema
    expect(list?.properties?.meta).toEqual({ $ref: '#/components/schemas/ListMeta' })
    expect(doc.paths['/api/v1/enrollments/bulk']?.post?.responses['207']).toBeDefined()
  })

  it('describes the job-role writes and the matrix and job-role query parameters', () => {
    const put = doc.paths['/api/v1/users/{id}/job-roles']?.put as unknown as {
      requestBody: { content: Record<string, { schema: { required: string[] } }> }
    }
    expect(put.requestBody.content['application/json']?.schema.required).toEqual(['job_role_ids'])
    const names = (path: string) =>
      ((doc.paths[path]?.get as unknown as { parameters: { name: string }[] }).parameters ?? []).map(
        (p) => p.name,
      )
    expect(names('/api/v1/job-roles')).toEqual(expect.arrayContaining(['search', 'include_inactive', 'page']))
    expect(names('/api/v1/skills/matrix').length).toBeGreaterThan(2)
  })

  it('gives every keyed POST the Idempotency-Key header, its 409 and 422, and Idempotent-Replayed', () => {
    const op = (path: string, method: string) =>
      doc.paths[path]?.[method] as unknown as {
        parameters?: { $ref?: string }[]
        responses: Record<string, { headers?: Record<string, unknown> }>
      }
    const keyRef = { $ref: '#/components/parameters/IdempotencyKey' }
    for (const r of described.filter((d) => d.method === 'POST')) {
      const post = op(r.path, 'post')
      const keyed = r.scope !== null
      expect(post.parameters ?? [], routeKey(r)).toEqual(
        keyed ? expect.arrayContaining([keyRef]) : expect.not.arrayContaining([keyRef]),
      )
      if (!keyed) continue
      expect(Object.keys(post.responses)).toEqual(expect.arrayContaining(['400', '409', '422']))
      const success = Object.entries(post.responses).filter(([status]) => status.startsWith('2'))
      for (const [, answer] of success)
        expect(answer.headers?.['Idempotent-Replayed'], routeKey(r)).toEqual({
          $ref: '#/components/headers/IdempotentReplayed',
        })
    }
    expect(op('/api/v1/users/{id}', 'patch').parameters).not.toEqual(expect.arrayContaining([keyRef]))
  })

  it('describes one webhook per event of the catalog with the signature headers', () => {
    expect(Object.keys(doc.webhooks).sort()).toEqual([...eventCatalog].sort())
    for (const event of eventCatalog)
      expect(doc.webhooks[event]?.post.parameters.map((p) => p.name)).toEqual([
        'x-service-event',
        'x-service-delivery',
        'x-service-signature',
        'webhook-id',
        'webhook-timestamp',
        'webhook-signature',
      ])
  })

  it("passes Redocly's recommended ruleset with no error", async () => {
    const report = await redoclyLint(doc)
    expect(report.problems.filter((p) => p.severity === 'error')).toEqual([])
    expect(report.errors).toBe(0)
  }, 60_000)

  it('gives openapi-typescript a type for every 2xx data (never unknown)', async () => {
    const { source, unknownData } = await generatedTypes(doc)
    expect(source).toContain('operations')
    expect(unknownData).toEqual([])
  }, 60_000)
})
