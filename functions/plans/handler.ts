/**
 * Route group `plans`: the public catalog. No key, not rate limited, cacheable for five minutes,
 * and readable cross-origin only by the configured corporate site.
 */
import { plans } from '../../shared/domain/plans/catalog.ts'
import { preflight } from '../../shared/http/cors.ts'
import { ok } from '../../shared/http/responses.ts'
import { publicRoute } from '../../shared/http/route.ts'
import { staticHttpStack } from '../../shared/http/static-stack.ts'
import { toPlan } from './representation.ts'

export const listPlans = publicRoute('GET /api/v1/plans', async () => {
  const result = ok(plans.map(toPlan))
  result.headers = { ...result.headers, 'cache-control': 'max-age=300' }
  return result
})

export const preflightPlans = publicRoute('OPTIONS /api/v1/plans', async ({ event }) =>
  preflight(event, 'GET, OPTIONS'),
)

export const handler = staticHttpStack([listPlans, preflightPlans])
