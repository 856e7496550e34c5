/**
 * Route group `plans`: the public catalog. No key, not rate limited, cacheable for five minutes,
 * and readable cross-origin only by the configured corporate site.
 */
import { config } from '../../shared/config.ts'
import { plans } from '../../shared/domain/plans/catalog.ts'
import type { HttpEvent } from '../../shared/http/context.ts'
import { ok } from '../../shared/http/responses.ts'
import { publicRoute } from '../../shared/http/route.ts'
import { httpStack } from '../../shared/http/stack.ts'

function corsHeaders(event: HttpEvent): Record<string, string> {
  const origin = event.headers?.origin
  const base = { vary: 'Origin' }
  if (origin !== config.corporateOrigin) return base
  return { ...base, 'access-control-allow-origin': origin }
}

export const listPlans = publicRoute('GET /api/v1/plans', async ({ event }) => {
  const result = ok(plans)
  result.headers = { ...result.headers, 'cache-control': 'max-age=300', ...corsHeaders(event) }
  return result
})

export const preflightPlans = publicRoute('OPTIONS /api/v1/plans', async ({ event }) => {
  const cors = corsHeaders(event)
  const allowed = 'access-control-allow-origin' in cors
  return {
    statusCode: 204,
    headers: allowed
      ? {
          ...cors,
          'access-control-allow-methods': 'GET, OPTIONS',
          'access-control-allow-headers': 'content-type',
          'access-control-max-age': '300',
        }
      : cors,
  }
})

export const handler = httpStack([listPlans, preflightPlans])
