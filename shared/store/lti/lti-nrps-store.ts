/**
 * The membership service of a platform context (decision 0052): the last NRPS claim an Instructor
 * launch carried for (registration, context), with the deployment it came through, so that
 * `lms lti roster sync` can read that context's roster later. Holds no person's data.
 */
import * as v from 'valibot'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import { batchDelete, conditionally, getItem, putItem, queryAll } from '../core/db.ts'
import { defineEntity, field } from '../core/entity.ts'
import { cond, conditionExpression, queryExpression } from '../core/expression.ts'
import { keys, type Key } from '../core/keys.ts'

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
  /**
   * The latest launch's claim replaces the one before (a platform may move its service), unless one
   * was kept after `keptAfter`: at most one launch a window syncs the context's roster.
   */
  keep: (tenant: TenantContext, s: KeptMembershipService, keptAfter: string) => ({
    Item: serviceEntity.item(tenant, s),
    ...conditionExpression(cond.or(cond.notExists(), cond.lt('seen_at', keptAfter))),
  }),
  /** Every context's service kept for one registration (its keys only). */
  ofRegistration: (tenant: TenantContext, registrationId: string) => ({
    ...queryExpression({
      key: cond.and(
        cond.eq('pk', keys.tenantPartition(tenant)),
        cond.beginsWith('sk', keys.ltiMembershipServicesOfPrefix(registrationId)),
      ),
    }),
    ProjectionExpression: 'pk, sk',
  }),
}

/** @returns false when a launch kept the service after `keptAfter` (it synced the roster then) */
export function keepMembershipService(
  tenant: TenantContext,
  s: KeptMembershipService,
  keptAfter: string,
): Promise<boolean> {
  return conditionally(putItem(nrpsParams.keep(tenant, s, keptAfter)))
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

/** A registration deleted: the services kept for its contexts go with it. */
export async function deleteMembershipServicesOf(
  tenant: TenantContext,
  registrationId: string,
): Promise<void> {
  const items = await queryAll(nrpsParams.ofRegistration(tenant, registrationId))
  await batchDelete(items.map((item): Key => ({ pk: String(item.pk), sk: String(item.sk) })))
}
