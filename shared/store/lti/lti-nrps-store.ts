/**
 * The membership service of a platform context (decision 0052): the last NRPS claim an Instructor
 * launch carried for (registration, context), with the deployment it came through, so that
 * `lms lti roster sync` can read that context's roster later. Holds no person's data.
 */
import * as v from 'valibot'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import { getItem, putItem } from '../core/db.ts'
import { defineEntity, field } from '../core/entity.ts'
import { keys } from '../core/keys.ts'

export interface KeptMembershipService {
  readonly registrationId: string
  readonly contextId: string
  readonly deploymentId: string
  readonly membershipsUrl: string
  readonly seenAt: string
}

const serviceEntity = defineEntity(
  'lti_membership_service',
  {
    registrationId: field('registration_id', v.string()),
    contextId: field('context_id', v.string()),
    deploymentId: field('deployment_id', v.string()),
    membershipsUrl: field('memberships_url', v.string()),
    seenAt: field('seen_at', v.string()),
  },
  { key: (tenant: TenantContext, s) => keys.ltiMembershipService(tenant, s.registrationId, s.contextId) },
)

export const nrpsParams = {
  /** The latest launch's claim replaces the one before (a platform may move its service). */
  keep: (tenant: TenantContext, s: KeptMembershipService) => ({ Item: serviceEntity.item(tenant, s) }),
}

export async function keepMembershipService(tenant: TenantContext, s: KeptMembershipService): Promise<void> {
  await putItem(nrpsParams.keep(tenant, s))
}

export async function getMembershipService(
  tenant: TenantContext,
  registrationId: string,
  contextId: string,
): Promise<KeptMembershipService | undefined> {
  const item = await getItem(keys.ltiMembershipService(tenant, registrationId, contextId), {
    ConsistentRead: true,
  })
  return item ? serviceEntity.decode(item) : undefined
}
