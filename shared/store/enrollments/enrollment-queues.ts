/**
 * The two sparse indexes of enrollment pairs (shared/store/enrollments/enrollment-items.ts pairIndexKeys): a
 * course's waitlist, oldest first (gsi2), and the tenant's active enrollments by end of access
 * (gsi1). Each holds only its job's candidates, so reading it costs what it returns, never the
 * course's or the tenant's enrollments. Indexes are eventually consistent: a caller re-reads each
 * enrollment it acts on and writes conditioned on what it read.
 */
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import { queryAll, queryUpTo } from '../core/db.ts'
import { enrollmentIdOfIndexKey } from './enrollment-items.ts'
import { cond, queryExpression } from '../core/expression.ts'
import { indexes, keys } from '../core/keys.ts'

const waitlist = indexes.gsi2
const accessEnds = indexes.gsi1

export const oldestWaitlistedParams = (tenant: TenantContext, courseId: string) => ({
  IndexName: waitlist.name,
  ...queryExpression({
    key: cond.eq(waitlist.pk, keys.waitlistIndexPk(tenant, courseId)),
    project: [waitlist.sk],
  }),
  ScanIndexForward: true,
})

/** One place on a course's waitlist: the enrollment, and its place (`<since>#<enrollment id>`). */
export interface WaitlistPlace {
  readonly enrollmentId: string
  readonly place: string
}

/** The course's oldest waitlist places, at most `limit`, oldest first. */
export async function oldestWaitlisted(
  tenant: TenantContext,
  courseId: string,
  limit: number,
): Promise<WaitlistPlace[]> {
  const items = await queryUpTo({ ...oldestWaitlistedParams(tenant, courseId), Limit: limit }, limit)
  return items.map((i) => {
    const place = String(i[waitlist.sk])
    return { enrollmentId: enrollmentIdOfIndexKey(place), place }
  })
}

export const accessEndedByParams = (tenant: TenantContext, at: string) => ({
  IndexName: accessEnds.name,
  ...queryExpression({
    // `#` sorts before every character of an id, `~` after: every end at `at` is included.
    key: cond.and(
      cond.eq(accessEnds.pk, keys.accessExpiryIndexPk(tenant)),
      cond.le(accessEnds.sk, `${at}#~`),
    ),
    project: [accessEnds.sk],
  }),
})

/** The ids of the tenant's active enrollments whose access ended at or before `at`. */
export async function accessEndedBy(tenant: TenantContext, at: string): Promise<string[]> {
  const items = await queryAll(accessEndedByParams(tenant, at))
  return items.map((i) => enrollmentIdOfIndexKey(String(i[accessEnds.sk])))
}
