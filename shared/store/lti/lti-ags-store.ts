/**
 * The AGS link of an enrollment (decision 0050): the line item, the platform user (`sub`) and the
 * registration of the launch that named it, and the mark of the latest score claimed for it.
 */
import * as v from 'valibot'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import { batchDelete, conditionally, getItem, updateItem, type Item } from '../core/db.ts'
import { defineEntity, field } from '../core/entity.ts'
import { cond, updateExpression } from '../core/expression.ts'
import { keys } from '../core/keys.ts'
import { commit } from '../core/transaction.ts'

export interface AgsLink {
  readonly enrollmentId: string
  readonly registrationId: string
  /** The platform's user id (the launch's `sub`): the score's `userId`. */
  readonly sub: string
  readonly lineItem: string
  readonly linkedAt: string
}

const agsLinkEntity = defineEntity(
  'lti_ags_link',
  {
    enrollmentId: field('enrollment_id', v.string()),
    registrationId: field('registration_id', v.string()),
    sub: field('sub', v.string()),
    lineItem: field('lineitem', v.string()),
    linkedAt: field('linked_at', v.string()),
  },
  { key: (tenant: TenantContext, l) => keys.ltiAgsLink(tenant, l.enrollmentId) },
)

export const agsParams = {
  /** Every launch sets the link as it names it; the score mark (another writer's) stays. */
  keep: (tenant: TenantContext, link: AgsLink) => ({
    Key: keys.ltiAgsLink(tenant, link.enrollmentId),
    ...updateExpression({ set: { type: agsLinkEntity.type, ...agsLinkEntity.encode(link) } }),
  }),

  /**
   * With the link, the enrollment says it has one (its `scoresLinked`): its events carry that to
   * the relay, which then reads no link for the enrollments without one. Set, never cleared.
   */
  markEnrollment: (tenant: TenantContext, enrollmentId: string) => ({
    Key: keys.enrollment(tenant, enrollmentId),
    ...updateExpression({ set: { scores_linked: true } }, cond.exists()),
  }),

  /**
   * Claims the post of a score whose mark (shared/domain/lti/ags.ts scoreMark) is not below the
   * latest claimed for this line item: a retry of the same score passes, a late "in progress"
   * after a completion does not. A link gone, or moved to another line item, starts afresh.
   */
  claimScore: (tenant: TenantContext, enrollmentId: string, lineItem: string, mark: string) => ({
    Key: keys.ltiAgsLink(tenant, enrollmentId),
    ...updateExpression(
      { set: { scored_mark: mark, scored_lineitem: lineItem } },
      cond.and(
        cond.exists(),
        cond.eq('lineitem', lineItem),
        cond.or(
          cond.notExists('scored_mark'),
          cond.ne('scored_lineitem', lineItem),
          cond.le('scored_mark', mark),
        ),
      ),
    ),
  }),
}

/** The link and the enrollment's mark of it, in one transaction. @throws WriteRefused when the enrollment is gone */
export async function keepAgsLink(tenant: TenantContext, link: AgsLink): Promise<void> {
  await commit([
    { item: { Update: agsParams.keep(tenant, link) } },
    { item: { Update: agsParams.markEnrollment(tenant, link.enrollmentId) } },
  ])
}

export async function getAgsLink(tenant: TenantContext, enrollmentId: string): Promise<AgsLink | undefined> {
  const item = await getItem(keys.ltiAgsLink(tenant, enrollmentId), { ConsistentRead: true })
  return item ? agsLinkEntity.decode(item) : undefined
}

/** @returns false when the score is superseded, or the link is gone or names another line item now */
export function claimScore(
  tenant: TenantContext,
  enrollmentId: string,
  lineItem: string,
  mark: string,
): Promise<boolean> {
  return conditionally(updateItem(agsParams.claimScore(tenant, enrollmentId, lineItem, mark)))
}

/** Deletes the enrollments' links (erasure): each with its platform user id. */
export async function deleteAgsLinks(tenant: TenantContext, enrollmentIds: readonly string[]): Promise<void> {
  await batchDelete(enrollmentIds.map((id) => keys.ltiAgsLink(tenant, id)))
}

/** Every AGS link: what the scores-linked migration scans (decision 0050, amendment). */
export const agsLinkFilter = cond.eq('type', agsLinkEntity.type)

/** The tenant and enrollment of a stored link; undefined for an item that is not one. */
export function linkedEnrollmentOf(item: Item): { tenantId: string; enrollmentId: string } | undefined {
  const pk = item.pk
  if (item.type !== agsLinkEntity.type || typeof pk !== 'string' || !pk.startsWith('T#')) return undefined
  return { tenantId: pk.slice(2), enrollmentId: agsLinkEntity.decode(item).enrollmentId }
}

/** The enrollment says it has a link (a link written before it did). @returns false when it is gone */
export function markEnrollmentLinked(tenant: TenantContext, enrollmentId: string): Promise<boolean> {
  return conditionally(updateItem(agsParams.markEnrollment(tenant, enrollmentId)))
}
