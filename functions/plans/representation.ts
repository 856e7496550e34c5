/** How a plan reads in the public catalog; the type is inferred from the schema the OpenAPI document shows. */
import * as v from 'valibot'
import { planIds, type Plan } from '../../shared/domain/plans/catalog.ts'

const centsOrNull = v.nullable(v.number())

/** The catalog as the domain declares it (camelCase, as the spec's plans document shows it). */
export const PlanSchema = v.object({
  id: v.picklist(planIds),
  displayName: v.string(),
  displayNameFr: v.string(),
  pricePerActiveUserCents: centsOrNull,
  pricePerActiveUserCentsMonthly: centsOrNull,
  pricePerActiveUserCentsAnnual: centsOrNull,
  seatCap: centsOrNull,
  courseCap: centsOrNull,
  storageCapMb: centsOrNull,
  apiMonthlyCap: centsOrNull,
  capabilities: v.array(v.picklist(['api_access', 'skills_management', 'skills_planning', 'webhooks'])),
  highlights: v.array(v.string()),
})

/** Every field copied by name: the answer holds exactly the schema's fields, whatever else the domain's plan gains. */
export const toPlan = (p: Plan): v.InferOutput<typeof PlanSchema> => ({
  id: p.id,
  displayName: p.displayName,
  displayNameFr: p.displayNameFr,
  pricePerActiveUserCents: p.pricePerActiveUserCents,
  pricePerActiveUserCentsMonthly: p.pricePerActiveUserCentsMonthly,
  pricePerActiveUserCentsAnnual: p.pricePerActiveUserCentsAnnual,
  seatCap: p.seatCap,
  courseCap: p.courseCap,
  storageCapMb: p.storageCapMb,
  apiMonthlyCap: p.apiMonthlyCap,
  capabilities: [...p.capabilities],
  highlights: [...p.highlights],
})
