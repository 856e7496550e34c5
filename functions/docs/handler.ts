/**
 * Route group `docs`: the OpenAPI document, public, unmetered and cacheable. GET /api/v1/docs
 * serves it in the envelope (as the specification's docs route does), GET /api/v1/openapi.json
 * serves it bare, for tools that generate clients.
 */
import { config } from '../../shared/config.ts'
import { ok } from '../../shared/http/responses.ts'
import { publicRoute } from '../../shared/http/route.ts'
import { staticHttpStack } from '../../shared/http/static-stack.ts'
import { buildOpenApiDocument } from './openapi-document.ts'

const document = buildOpenApiDocument(config.serviceHost)
const serialised = JSON.stringify(document)

export const getDocs = publicRoute('GET /api/v1/docs', async () => {
  const result = ok(document)
  result.headers = { ...result.headers, 'cache-control': 'max-age=300' }
  return result
})

export const getOpenApi = publicRoute('GET /api/v1/openapi.json', async () => ({
  statusCode: 200,
  headers: { 'content-type': 'application/json', 'cache-control': 'public, max-age=300' },
  body: serialised,
}))

export const handler = staticHttpStack([getDocs, getOpenApi])
