/** What sign-up and contact answer; the types are inferred from the schemas the OpenAPI document shows. */
import * as v from 'valibot'
import { planIds } from '../../shared/domain/plans/catalog.ts'
import { tenantStatuses } from '../../shared/domain/tenants/tenant.ts'
import { writableRoles } from '../../shared/domain/users/user.ts'

export const SignupResultSchema = v.object({
  tenant: v.object({
    id: v.string(),
    slug: v.string(),
    name: v.string(),
    plan: v.picklist(planIds),
    status: v.picklist(tenantStatuses),
  }),
  owner: v.object({
    id: v.string(),
    email: v.string(),
    first_name: v.string(),
    last_name: v.string(),
    role: v.picklist(writableRoles),
  }),
  portal_url: v.string(),
})

export const ContactReceiptSchema = v.object({ id: v.string(), received_at: v.string() })
