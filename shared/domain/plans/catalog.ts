/**
 * The plans catalog: the one table that both `GET /api/v1/plans` publishes and every entitlement
 * check reads. Prices are CAD cents per active user per month; the annual cycle is 20% below the
 * monthly one. The prices and monthly API caps are our choice (the spec gives none): see
 * docs/decisions/plans-and-limits.md.
 */
import type { PlanId } from '../errors.ts'

export type Capability = 'api_access' | 'skills_management' | 'skills_planning' | 'webhooks'

export interface Plan {
  readonly id: PlanId
  readonly displayName: string
  readonly displayNameFr: string
  readonly pricePerActiveUserCents: number | null
  readonly pricePerActiveUserCentsMonthly: number | null
  readonly pricePerActiveUserCentsAnnual: number | null
  readonly seatCap: number | null
  readonly courseCap: number | null
  readonly storageCapMb: number | null
  readonly apiMonthlyCap: number | null
  readonly capabilities: readonly Capability[]
  readonly highlights: readonly string[]
}

const ANNUAL_DISCOUNT = 0.2

function priced(monthlyCents: number) {
  const annual = Math.round(monthlyCents * (1 - ANNUAL_DISCOUNT))
  return {
    pricePerActiveUserCents: annual,
    pricePerActiveUserCentsMonthly: monthlyCents,
    pricePerActiveUserCentsAnnual: annual,
  }
}

export const planIds: readonly PlanId[] = ['free', 'starter', 'growth', 'enterprise']

export const plans: readonly Plan[] = [
  {
    id: 'free',
    displayName: 'Free',
    displayNameFr: 'Gratuit',
    pricePerActiveUserCents: 0,
    pricePerActiveUserCentsMonthly: 0,
    pricePerActiveUserCentsAnnual: 0,
    seatCap: 5,
    courseCap: 3,
    storageCapMb: 1024,
    apiMonthlyCap: 0,
    capabilities: [],
    highlights: ['Up to 5 active users', 'Up to 3 active courses', '1 GB of storage'],
  },
  {
    id: 'starter',
    displayName: 'Starter',
    displayNameFr: 'Démarrage',
    ...priced(800),
    seatCap: null,
    courseCap: null,
    storageCapMb: 51200,
    apiMonthlyCap: 0,
    capabilities: ['skills_management'],
    highlights: ['Unlimited active users and courses', '50 GB of storage', 'Job roles and skills'],
  },
  {
    id: 'growth',
    displayName: 'Growth',
    displayNameFr: 'Croissance',
    ...priced(1500),
    seatCap: null,
    courseCap: null,
    storageCapMb: null,
    apiMonthlyCap: 250_000,
    capabilities: ['api_access', 'skills_management', 'skills_planning', 'webhooks'],
    highlights: ['REST API and webhooks', 'Skills planning matrix', 'Unlimited storage'],
  },
  {
    id: 'enterprise',
    displayName: 'Enterprise',
    displayNameFr: 'Entreprise',
    pricePerActiveUserCents: null,
    pricePerActiveUserCentsMonthly: null,
    pricePerActiveUserCentsAnnual: null,
    seatCap: null,
    courseCap: null,
    storageCapMb: null,
    apiMonthlyCap: null,
    capabilities: ['api_access', 'skills_management', 'skills_planning', 'webhooks'],
    highlights: ['Everything in Growth', 'Unlimited API calls', 'Custom pricing and terms'],
  },
]

const byId = new Map(plans.map((p) => [p.id, p]))

export function planById(id: PlanId): Plan {
  const plan = byId.get(id)
  if (!plan) throw new Error(`Unknown plan ${id}`)
  return plan
}

export function isPlanId(value: string): value is PlanId {
  return byId.has(value as PlanId)
}
