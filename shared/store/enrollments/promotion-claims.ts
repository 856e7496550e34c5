/**
 * A promoter's claim on one waitlist place, taken before it writes the promotion. It is not what
 * makes a promotion happen once (the promotion's own transaction does that: the enrollment still
 * waitlisted as read, the course published with a free seat); it keeps racing promoters off the
 * course item. Without it, 50 promoters started by 50 drops all tried the same oldest enrollment,
 * and each lost race was one more transaction on the course, the tenant counters and the course
 * tally, the items every drop also writes (docs/decisions/0016). A claim is a single-item write
 * on an item no one else writes, so losing one costs a failed Put, not a queued transaction.
 */
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import { conditionally, deleteItem, putItem } from '../core/db.ts'
import { cond, conditionExpression } from '../core/expression.ts'
import { keys, TTL_ATTRIBUTE } from '../core/keys.ts'

/** Longer than a request may run (29 s), so a live promoter keeps its claim to the end. */
export const PROMOTION_CLAIM_LEASE_MS = 30_000
/** A claim left behind (its promoter died, or it promoted) is removed by TTL after a day. */
const CLAIM_RETENTION_SECONDS = 86_400

export const promotionClaimParams = {
  /** Taken when no one holds the place, or when its holder's lease ran out before `now`. */
  claim: (tenant: TenantContext, place: string, token: string, now: Date) => ({
    Item: {
      ...keys.promotionClaim(tenant, place),
      type: 'promotion_claim',
      token,
      lease_until: new Date(now.getTime() + PROMOTION_CLAIM_LEASE_MS).toISOString(),
      [TTL_ATTRIBUTE]: Math.floor(now.getTime() / 1000) + CLAIM_RETENTION_SECONDS,
    },
    ...conditionExpression(cond.or(cond.notExists(), cond.lt('lease_until', now.toISOString()))),
  }),
  /** Only the holder gives a place back. */
  release: (tenant: TenantContext, place: string, token: string) => ({
    Key: keys.promotionClaim(tenant, place),
    ...conditionExpression(cond.eq('token', token)),
  }),
}

/**
 * The clock is the machine's, never an `--at`: a backdated promotion must not hold a place for
 * ever, nor take over one that is being promoted right now.
 * @returns false when another promoter holds the place
 */
export function claimPromotion(tenant: TenantContext, place: string, token: string): Promise<boolean> {
  return conditionally(putItem(promotionClaimParams.claim(tenant, place, token, new Date())))
}

/** Gives a place back at once (its promotion did not happen), so the next promoter need not wait. */
export async function releasePromotion(tenant: TenantContext, place: string, token: string): Promise<void> {
  await conditionally(deleteItem(promotionClaimParams.release(tenant, place, token)))
}
