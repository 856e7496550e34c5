/**
 * How the skills items are read by key prefix, and the tenant-wide reads of per-person items (users
 * `USER#<userId>`, skills summaries `USKILLSUM#<userId>`) that the status-filtered matrix makes, and
 * of summaries, held skills and holdings that the summaries' backfill makes. On 10,000 people they are many
 * 1 MB pages: read one after another, as one Query, they took longer than the request may. They are
 * read instead as 16 Queries side by side, one per first hex digit of the user id (user ids are
 * UUIDs), the first and last ranges open-ended so that any other id is read too.
 */
import type { QueryCommandInput } from '@aws-sdk/lib-dynamodb'
import { mapLimit } from '../../concurrency.ts'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import type { User } from '../../domain/users/user.ts'
import { queryAll, type Item } from '../core/db.ts'
import { cond, queryExpression, type Condition } from '../core/expression.ts'
import { keys } from '../core/keys.ts'
import { toUser } from '../users/users-store.ts'

const HEX = '0123456789abcdef'
/** What every user item's sort key starts with (`keys.user`), and its group edges'. */
const USER_PREFIX = keys.userWithEdgesPrefix('')
/** Above every character a key holds: the last range's end. */
const TOP = '\uffff'

/**
 * The tenant's items whose sort key starts with `prefix`, as a key range rather than
 * `begins_with`: the same items (what follows the prefix is ids and `#`, all below U+FFFF), and
 * DynamoDB Local, which evaluates `begins_with` by reading the whole partition (about 1 s a Query
 * on a 10,000-person tenant's 80,000 items, against 20 ms for the range), answers it from its index.
 */
export const keyPrefix = (tenant: TenantContext, prefix: string): Condition =>
  cond.and(cond.eq('pk', keys.tenantPartition(tenant)), cond.between('sk', prefix, `${prefix}${TOP}`))

export interface SegmentsRead {
  readonly filter?: Condition
  /** Strongly consistent (the summaries' backfill): every write committed before is seen. */
  readonly consistent?: boolean
}

/** The Queries of every item whose sort key starts with `prefix`, in 16 disjoint key ranges. */
export function prefixSegmentsParams(
  tenant: TenantContext,
  prefix: string,
  { filter, consistent }: SegmentsRead = {},
): Omit<QueryCommandInput, 'TableName'>[] {
  return [...HEX].map((digit, i) => {
    const low = i === 0 ? prefix : `${prefix}${digit}`
    const high = i === HEX.length - 1 ? `${prefix}${TOP}` : `${prefix}${HEX[i + 1] ?? TOP}`
    return {
      ...queryExpression({
        key: cond.and(cond.eq('pk', keys.tenantPartition(tenant)), cond.between('sk', low, high)),
        ...(filter ? { filter } : {}),
      }),
      ...(consistent ? { ConsistentRead: true } : {}),
    }
  })
}

/** Every item under `prefix`, in key order. */
export async function queryPrefixInSegments(
  tenant: TenantContext,
  prefix: string,
  read: SegmentsRead = {},
): Promise<Item[]> {
  const pages = await mapLimit(prefixSegmentsParams(tenant, prefix, read), 16, (p) => queryAll(p))
  return pages.flat()
}

/** The user items among the `USER#…` keys (the others are their group edges). */
export const userItemsOnly = cond.eq('type', 'user')

/**
 * Every user of the tenant, for the matrix's name search and status filter: from the table in 16
 * ranges rather than from the users-by-created index in one (10,000 users are 8 pages read one
 * after another, and DynamoDB Local takes seconds a page from an index).
 */
export async function allUsersInSegments(tenant: TenantContext): Promise<User[]> {
  return (await queryPrefixInSegments(tenant, USER_PREFIX, { filter: userItemsOnly })).map(toUser)
}
