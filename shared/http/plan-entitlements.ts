/** API access belongs to the plan (Growth and up): checked for every key-authenticated request. */
import { requireCapability } from '../domain/plans/entitlements.ts'
import { established, type MiddyRequest } from './context.ts'

export function planEntitlements() {
  return {
    before: function planEntitlementsBefore(request: MiddyRequest): void {
      requireCapability(established(request.context.lms.tenant, 'The tenant').plan, 'api_access')
    },
  }
}
