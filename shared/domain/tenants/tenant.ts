import type { PlanId } from '../errors.ts'
import { text, textRules } from '../text-rules.ts'

export const tenantKinds = ['customer', 'demo', 'sandbox', 'training'] as const
export type TenantKind = (typeof tenantKinds)[number]

export const tenantStatuses = ['active', 'suspended', 'trialing', 'past_due', 'cancelled'] as const
export type TenantStatus = (typeof tenantStatuses)[number]

export interface Tenant {
  readonly id: string
  readonly slug: string
  readonly name: string
  readonly plan: PlanId
  readonly kind: TenantKind
  readonly status: TenantStatus
  readonly skillsPlanning: boolean
  /** Operator override of the plan's monthly API cap; null follows the plan. */
  readonly monthlyApiCap: number | null
  /**
   * The subscription's current period start as the billing orchestrator reports it (operator CLI);
   * null: the calendar month is the period.
   */
  readonly periodStart: string | null
  readonly createdAt: string
  readonly updatedAt: string
}

/** What every store function takes first: data access cannot be written without a tenant. */
export interface TenantContext {
  readonly id: string
  readonly plan: PlanId
}

/** Statuses in which the tenant's API answers; the others refuse authenticated requests. */
export function tenantServes(status: TenantStatus): boolean {
  return status === 'active' || status === 'trialing' || status === 'past_due'
}

export const SLUG_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/

/** A tenant's display name: the organization's, from sign-up or the operator CLI. */
export const OrganizationName = text(textRules.organizationName, { trimmed: true, required: true })
