/** Route group `docs`: GET /api/v1/docs, the OpenAPI description, public and cacheable. */
import { config } from '../../shared/config.ts'
import { ok } from '../../shared/http/responses.ts'
import { publicRoute } from '../../shared/http/route.ts'
import { staticHttpStack } from '../../shared/http/static-stack.ts'
import { buildApiDescription } from './api-description.ts'

const description = buildApiDescription(config.serviceHost)

export const getDocs = publicRoute('GET /api/v1/docs', async () => {
  const result = ok(description)
  result.headers = { ...result.headers, 'cache-control': 'max-age=300' }
  return result
})

export const handler = staticHttpStack([getDocs])
