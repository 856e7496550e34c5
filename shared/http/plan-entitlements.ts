/** API access belongs to the plan (Growth and up): checked for every key-authenticated request. */
import { requireCapability } from '../domain/plans/entitlements.ts'
import type { MiddyRequest } from './context.ts'

export function planEntitlements() {
  return {
    before: function planEntitlementsBefore(request: MiddyRequest): void {
      const { tenant, actor } = request.context.lms
      if (!tenant || !actor) return
      requireCapability(tenant.plan, 'api_access')
    },
  }
}
