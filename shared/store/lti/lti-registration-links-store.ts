/**
 * One-time LTI Dynamic Registration links (decision 0051) in the tenant's partition, keyed by the
 * hash of their token. A request claims the link before it talks to the platform (a condition: open,
 * or claimed by a request whose claim lapsed, and unexpired), gives it back when the platform
 * refuses, and marks it used in the very transaction that stores the registration and its deployment.
 */
import * as v from 'valibot'
import type { LtiDeployment, LtiRegistration } from '../../domain/lti/lti.ts'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import { conditionally, putItem, updateItem } from '../core/db.ts'
import { defineEntity, field } from '../core/entity.ts'
import { cond, conditionExpression, updateExpression } from '../core/expression.ts'
import { keys, TTL_ATTRIBUTE } from '../core/keys.ts'
import { commit, type Step } from '../core/transaction.ts'
import { ltiParams, type LtiRefusal } from './lti-store.ts'

export interface NewRegistrationLink {
  readonly createdAt: string
  /** The key that made it (never the key): who handed the link out. */
  readonly createdBy: string
  readonly expiresEpoch: number
}

/** Keyed by the token, which is not stored: the request that uses the link names it. */
const linkEntity = defineEntity(
  'lti_registration_link',
  {
    status: field('status', v.picklist(['open', 'claimed', 'used'])),
    createdAt: field('created_at', v.string()),
    createdBy: field('created_by', v.string()),
    expiresEpoch: field('expires_epoch', v.number()),
  },
  {
    key: (at: { tenant: TenantContext; token: string }) => keys.ltiRegistrationLink(at.tenant, at.token),
    derived: (_, link) => ({ [TTL_ATTRIBUTE]: link.expiresEpoch }),
  },
)

/** Whose claim it is: the claiming request's id and until when it holds. */
export interface LinkClaim {
  readonly claimId: string
  readonly nowEpoch: number
  readonly untilEpoch: number
}

const heldBy = (claimId: string) => cond.and(cond.eq('status', 'claimed'), cond.eq('claim_id', claimId))

export const registrationLinkParams = {
  put: (tenant: TenantContext, token: string, link: NewRegistrationLink) => ({
    Item: linkEntity.item({ tenant, token }, { status: 'open', ...link }),
    ...conditionExpression(cond.notExists()),
  }),

  /** Unexpired, and open or held by a claim that lapsed (its request died): of racing requests one wins. */
  claim: (tenant: TenantContext, token: string, claim: LinkClaim) => ({
    Key: keys.ltiRegistrationLink(tenant, token),
    ...updateExpression(
      { set: { status: 'claimed', claim_id: claim.claimId, claimed_until: claim.untilEpoch } },
      cond.and(
        cond.exists(),
        cond.gt('expires_epoch', claim.nowEpoch),
        cond.or(
          cond.eq('status', 'open'),
          cond.and(cond.eq('status', 'claimed'), cond.lt('claimed_until', claim.nowEpoch)),
        ),
      ),
    ),
  }),

  release: (tenant: TenantContext, token: string, claimId: string) => ({
    Key: keys.ltiRegistrationLink(tenant, token),
    ...updateExpression({ set: { status: 'open' }, remove: ['claim_id', 'claimed_until'] }, heldBy(claimId)),
  }),

  /** The link used, by the request that still holds it; the registration's id kept for the audit of who registered what. */
  use: (
    tenant: TenantContext,
    token: string,
    claimId: string,
    registrationId: string,
  ): Step<LinkRefusal> => ({
    item: {
      Update: {
        Key: keys.ltiRegistrationLink(tenant, token),
        ...updateExpression(
          { set: { status: 'used', registration_id: registrationId }, remove: ['claimed_until'] },
          heldBy(claimId),
        ),
      },
    },
    refusal: 'claim_lost',
  }),
}

export type LinkRefusal = LtiRefusal | 'claim_lost'

export async function putRegistrationLink(
  tenant: TenantContext,
  token: string,
  link: NewRegistrationLink,
): Promise<void> {
  await putItem(registrationLinkParams.put(tenant, token, link))
}

/** @returns false when the link is unknown, used, expired, or held by another request */
export function claimRegistrationLink(
  tenant: TenantContext,
  token: string,
  claim: LinkClaim,
): Promise<boolean> {
  return conditionally(updateItem(registrationLinkParams.claim(tenant, token, claim)))
}

/** Gives the link back (the platform refused): usable again until it expires. */
export async function releaseRegistrationLink(
  tenant: TenantContext,
  token: string,
  claimId: string,
): Promise<void> {
  await conditionally(updateItem(registrationLinkParams.release(tenant, token, claimId)))
}

/**
 * The registration, its guard, its deployment (when the platform made one) and the link used, in
 * one transaction: a registration exists only with its link used, and a link is used only once.
 * @throws WriteRefused naming `registration_exists` (issuer and client id registered already) or `claim_lost`
 */
export async function insertLinkedRegistration(
  tenant: TenantContext,
  link: { readonly token: string; readonly claimId: string },
  registration: LtiRegistration,
  deployment: LtiDeployment | null,
): Promise<void> {
  await commit<LinkRefusal>([
    ...ltiParams.insertRegistration(tenant, registration),
    ...(deployment ? [{ item: { Put: ltiParams.putDeployment(tenant, deployment) } }] : []),
    registrationLinkParams.use(tenant, link.token, link.claimId, registration.id),
  ])
}
