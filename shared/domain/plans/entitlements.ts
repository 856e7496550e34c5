/** Entitlement rules: every check reads the catalog, so the catalog and the server never disagree. */
import { EntitlementError, type PlanId } from '../errors.ts'
import { planById, plans, type Capability } from './catalog.ts'

/** The cheapest plan that includes a capability: what an upgrade needs. */
export function lowestPlanWith(capability: Capability): PlanId {
  const plan = plans.find((p) => p.capabilities.includes(capability))
  if (!plan) throw new Error(`No plan includes ${capability}`)
  return plan.id
}

export function hasCapability(planId: PlanId, capability: Capability): boolean {
  return planById(planId).capabilities.includes(capability)
}

export function requireCapability(planId: PlanId, capability: Capability): void {
  if (hasCapability(planId, capability)) return
  throw new EntitlementError(
    'feature',
    capability,
    planId,
    lowestPlanWith(capability),
    `The ${planById(planId).displayName} plan does not include ${capability.replace(/_/g, ' ')}`,
  )
}

/** The cheapest plan without the cap, for the `required_tier` of a cap refusal. */
function lowestUncapped(limit: 'seatCap' | 'courseCap'): PlanId {
  return plans.find((p) => p[limit] === null)?.id ?? 'enterprise'
}

export function seatCapError(planId: PlanId): EntitlementError {
  const cap = planById(planId).seatCap
  return new EntitlementError(
    'cap',
    'seat_cap',
    planId,
    lowestUncapped('seatCap'),
    `The ${planById(planId).displayName} plan allows ${cap ?? 'unlimited'} active users; the cap is reached`,
  )
}

export function courseCapError(planId: PlanId): EntitlementError {
  const cap = planById(planId).courseCap
  return new EntitlementError(
    'cap',
    'course_cap',
    planId,
    lowestUncapped('courseCap'),
    `The ${planById(planId).displayName} plan allows ${cap ?? 'unlimited'} active courses; the cap is reached`,
  )
}

/** The plan's storage cap in bytes (the catalog says megabytes); null is unlimited. */
export function storageCapBytes(planId: PlanId): number | null {
  const mb = planById(planId).storageCapMb
  return mb === null ? null : mb * 1024 * 1024
}

export function storageCapError(planId: PlanId): EntitlementError {
  const plan = planById(planId)
  const cap = plan.storageCapMb ?? Infinity
  // The cheapest plan that stores more: free → starter, starter → growth (unlimited).
  const roomier = plans.find((p) => p.storageCapMb === null || p.storageCapMb > cap)?.id ?? 'enterprise'
  return new EntitlementError(
    'cap',
    'storage_cap',
    planId,
    roomier,
    `The ${plan.displayName} plan stores up to ${plan.storageCapMb ?? 'unlimited'} MB of content; this upload does not fit`,
  )
}

/** The monthly cap in force: a tenant override (set by an operator) wins over the plan's. */
export function monthlyApiCap(planId: PlanId, override: number | null | undefined): number | null {
  return override ?? planById(planId).apiMonthlyCap
}
