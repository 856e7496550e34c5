/**
 * The migrations' read of the whole table: a Scan, page by page, whose cursor (DynamoDB's
 * LastEvaluatedKey, the table's `pk` and `sk`) is handed out as an opaque string the runner saves
 * after each page, so a stopped run resumes at the page after the last one it finished. The filter
 * keeps only the items a migration changes; the Scan still reads (and is billed for) every item.
 */
import { scanPage, type Item } from '../core/db.ts'
import { scanExpression, type Condition } from '../core/expression.ts'
import { MalformedItem } from '../core/store-errors.ts'

export interface TablePage {
  /** The items the filter kept. */
  readonly items: Item[]
  /** Items read, kept or not. */
  readonly scanned: number
  /** Where the next page starts; undefined after the last page. */
  readonly next: string | undefined
}

function startKey(cursor: string): Record<string, unknown> {
  const key: unknown = JSON.parse(cursor)
  if (typeof key !== 'object' || key === null || Array.isArray(key))
    throw new MalformedItem('migration cursor', { pk: undefined, sk: undefined }, 'expected a key object')
  return key as Record<string, unknown>
}

export const scanTableParams = (filter: Condition, cursor: string | undefined, limit: number) => ({
  ...scanExpression(filter),
  Limit: limit,
  ...(cursor === undefined ? {} : { ExclusiveStartKey: startKey(cursor) }),
})

/** One page of at most `limit` items read (DynamoDB also ends a page at 1 MB). */
export async function scanTable(
  filter: Condition,
  cursor: string | undefined,
  limit: number,
): Promise<TablePage> {
  const page = await scanPage(scanTableParams(filter, cursor, limit))
  return { items: page.items, scanned: page.scanned, next: page.next && JSON.stringify(page.next) }
}
