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

/** What each cap counts, as its refusal says it. */
const capped = {
  seatCap: { code: 'seat_cap', counts: 'active users' },
  courseCap: { code: 'course_cap', counts: 'active courses' },
} as const

function capError(planId: PlanId, limit: keyof typeof capped): EntitlementError {
  const plan = planById(planId)
  return new EntitlementError(
    'cap',
    capped[limit].code,
    planId,
    lowestUncapped(limit),
    `The ${plan.displayName} plan allows ${plan[limit] ?? 'unlimited'} ${capped[limit].counts}; the cap is reached`,
  )
}

export const seatCapError = (planId: PlanId): EntitlementError => capError(planId, 'seatCap')
export const courseCapError = (planId: PlanId): EntitlementError => capError(planId, 'courseCap')

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
