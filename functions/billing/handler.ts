/**
 * Route group `billing`: GET /api/v1/billing/metrics for the billing orchestrator. No API key: the
 * platform secret as a Bearer token, checked before anything is read; computed live, never cached,
 * and reading changes nothing.
 */
import * as v from 'valibot'
import { UnauthenticatedError, ValidationError } from '../../shared/domain/errors.ts'
import { Uuid } from '../../shared/domain/validation.ts'
import { isPlatformSecret } from '../../shared/crypto/platform-secret.ts'
import { deprecationNoticeHeaders } from '../../shared/http/deprecation.ts'
import { ok } from '../../shared/http/responses.ts'
import { publicRoute } from '../../shared/http/route.ts'
import { httpStack } from '../../shared/http/stack.ts'
import { billingMetrics, type BillingMetrics } from '../../shared/services/billing/billing-service.ts'

/** `activeUsersThisMonth` is kept for compatibility; its notice rides on every answer carrying it. */
const aliasNotice = deprecationNoticeHeaders({
  since: '2026-11-23T00:00:00Z',
  sunset: '2027-11-23T00:00:00Z',
  link: 'https://docs.example.com/api/v1/billing#activeUsersThisMonth',
})

function bearer(header: string | undefined): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')
  return match?.[1]
}

/** `tenantId`, or its alias `service_tenant_id`; both given must agree. */
function tenantIdOf(query: Readonly<Record<string, string | undefined>>): string {
  const given = [query.tenantId, query.service_tenant_id].filter(
    (x): x is string => x !== undefined && x !== '',
  )
  if (given.length === 0) throw new ValidationError('tenantId', 'tenantId: required (or service_tenant_id)')
  if (given.length === 2 && given[0] !== given[1])
    throw new ValidationError('tenantId', 'tenantId and service_tenant_id name different tenants')
  const id = given[0] ?? ''
  if (!v.is(Uuid, id)) throw new ValidationError('tenantId', 'tenantId: must be a UUID')
  return id
}

const view = (m: BillingMetrics) => ({
  tenantId: m.tenantId,
  slug: m.slug,
  status: m.status,
  activeUsersInPeriod: m.activeUsersInPeriod,
  activeUsersThisMonth: m.activeUsersInPeriod,
  licensedUsers: m.licensedUsers,
  periodStart: m.periodStart,
  asOf: m.asOf,
})

export const getBillingMetrics = publicRoute('GET /api/v1/billing/metrics', async ({ event, query }) => {
  if (!(await isPlatformSecret(bearer(event.headers?.authorization))))
    throw new UnauthenticatedError('auth.invalid_platform_secret', 'Invalid or missing platform secret')
  const metrics = await billingMetrics(tenantIdOf(query), new Date().toISOString())
  const result = ok(view(metrics))
  result.headers = { ...result.headers, 'cache-control': 'no-store', ...aliasNotice }
  return result
})

export const handler = httpStack([getBillingMetrics])
