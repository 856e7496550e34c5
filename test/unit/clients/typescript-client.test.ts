import { readFile } from 'node:fs/promises'
import { describe, expect, it } from 'vitest'
import { schemaFile, schemaSource } from '../../../clients/typescript/scripts/schema-source.ts'
import { createLmsClient, tenantBaseUrl } from '../../../clients/typescript/src/index.ts'

const readJson = async (
  path: string,
): Promise<{ dependencies?: Record<string, string>; devDependencies?: Record<string, string> }> =>
  JSON.parse(await readFile(new URL(path, import.meta.url), 'utf8'))

describe('the typed client (clients/typescript)', () => {
  it('commits exactly the types the OpenAPI document generates now (else: npm run client:generate)', async () => {
    const committed = await readFile(schemaFile, 'utf8')
    expect(
      committed === (await schemaSource()),
      'src/schema.d.ts is stale: run npm run client:generate',
    ).toBe(true)
  }, 60_000)

  it('declares the openapi-fetch the repository installs and type-checks with', async () => {
    const client = await readJson('../../../clients/typescript/package.json')
    const root = await readJson('../../../package.json')
    expect(client.dependencies?.['openapi-fetch']).toBe(root.devDependencies?.['openapi-fetch'])
  })

  it("puts the tenant's slug in front of the service's host, keeping a path prefix", () => {
    expect(tenantBaseUrl('https://lms.example.com', 'acme')).toBe('https://acme.lms.example.com')
    expect(tenantBaseUrl('http://localhost:3000/', 'acme')).toBe('http://acme.localhost:3000')
    expect(tenantBaseUrl('https://acme.lms.example.com/edge/')).toBe('https://acme.lms.example.com/edge')
  })

  it('sends the API key as a Bearer token, and none when it has no key', async () => {
    const seen: (string | null)[] = []
    const fetch = async (request: Request) => {
      seen.push(request.headers.get('authorization'))
      return Response.json({ data: [], meta: null, error: null })
    }
    await createLmsClient({ baseUrl: 'https://lms.example.com', tenant: 'acme', apiKey: 'sk_1', fetch }).GET(
      '/api/v1/plans',
    )
    await createLmsClient({ baseUrl: 'https://acme.lms.example.com', fetch }).GET('/api/v1/plans')
    expect(seen).toEqual(['Bearer sk_1', null])
  })
})
