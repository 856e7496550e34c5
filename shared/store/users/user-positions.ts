/**
 * Where a deep page of the users list starts (decision 0014). An offset page of gsi1 reads every
 * entry it skips at full size (a user entry is ~360 bytes: page 100 of 50 read 439 RCU). `pos1` is a
 * KEYS_ONLY index of the tenant's users in the order of gsi1 (created_at, then id) whose entries are
 * as small as an entry can be: the table's own keys (its partition key is the table's `pk`, so it
 * adds no attribute) and `p1`, a 22-character sort value. Skipping 4,950 entries reads ~0.5 MB
 * instead of ~1.8 MB; the page itself is then read from gsi1 from the skipped-to user on.
 *
 * `p1` = created_at as milliseconds in base 36, 9 digits wide (fixed width: string order is time
 * order until the year 5188), `#`, the first 12 characters of the id. gsi1 sorts by
 * `<created_at ISO>#<id>`; both orders agree because every created_at is a canonical ISO instant
 * (toISOString) and two ids of one millisecond differ in their first 12 random hex digits.
 */
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import type { Item } from '../core/db.ts'
import { cond, queryExpression } from '../core/expression.ts'
import { keys } from '../core/keys.ts'
import type { QueryCommandInput } from '@aws-sdk/lib-dynamodb'

export const positionIndex = { name: 'pos1', pk: 'pk', sk: 'p1' } as const

/** Below this offset a page reads gsi1 directly: the two extra calls would cost more than they save. */
export const SKIP_FROM_OFFSET = 100

export function userPosition(createdAt: string, id: string): string {
  const ms = Date.parse(createdAt)
  if (!Number.isFinite(ms) || ms < 0) throw new Error('created_at is not an instant')
  return `${ms.toString(36).padStart(9, '0')}#${id.slice(0, 12)}`
}

/** The position attribute a user item carries (set once, with the user: created_at never moves). */
export function userPositionAttributes(user: { readonly createdAt: string; readonly id: string }): Item {
  return { [positionIndex.sk]: userPosition(user.createdAt, user.id) }
}

/** The first `offset` positions in list order; the last one read is where the page starts after. */
export function skipQueryParams(
  tenant: TenantContext,
  order: 'asc' | 'desc',
  offset: number,
): Omit<QueryCommandInput, 'TableName'> {
  return {
    IndexName: positionIndex.name,
    ...queryExpression({ key: cond.eq(positionIndex.pk, keys.tenantPartition(tenant)) }),
    ScanIndexForward: order === 'asc',
    Limit: offset,
  }
}
