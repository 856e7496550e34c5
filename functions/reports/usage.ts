/**
 * GET /api/v1/usage: the calling key's minute and its tenant's month, as this very request was
 * counted in them (so the answer includes itself and agrees with its own RateLimit headers). It
 * reads nothing from the table: decision 0037.
 */
import { ok } from '../../shared/http/responses.ts'
import { route } from '../../shared/http/route.ts'
import { usageOf } from '../../shared/services/billing/usage-service.ts'
import { toUsage } from './usage-representation.ts'

export const usage = route('GET /api/v1/usage', async ({ tenant, counted }) =>
  ok(toUsage(usageOf(tenant, counted()))),
)
