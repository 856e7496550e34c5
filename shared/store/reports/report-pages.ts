/**
 * The tenant-wide report reads of reports-store as an export reads them: every entry once, page
 * after page by the Query's own cursor (offset pages would re-read every entry before the page),
 * only the attributes a row needs (export-row-items.ts), and a date range cut into key-range
 * slices read a few at a time ahead of the writer, in the report's order (docs/decisions/0018).
 */
import type { QueryCommandInput } from '@aws-sdk/lib-dynamodb'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import { concatAhead } from '../../read-ahead.ts'
import { query, queryRaw, type RawPage } from '../core/db.ts'
import {
  toRowEnrollment,
  rowAttributes,
  type RawItem,
  type RowEnrollment,
} from '../files/export-row-items.ts'
import { cond, queryExpression } from '../core/expression.ts'
import { keys } from '../core/keys.ts'
import { reportIndexes } from './report-indexes.ts'
import {
  completionsKeyRange,
  enrolledKeyRange,
  rangeQuery,
  type CompletionsRange,
  type EnrolledRange,
  type KeyRange,
} from './reports-store.ts'

/** Entries a page reads (DynamoDB also stops a page at 1 MB of entries, before the projection). */
export const EXPORT_PAGE_SIZE = 1000

/**
 * How a long read is cut: into SLICES key ranges of equal time, WIDTH of them read at once, each
 * up to DEPTH pages ahead of the writer. Memory: WIDTH × DEPTH pages of row attributes at most.
 */
export const exportReads = { slices: 8, width: 3, depth: 2 }

/** The Query of the range's slice between `from` and `to` (inclusive), only the row attributes. */
export const keyRangeParams = (r: KeyRange, from = r.from, to = r.to) =>
  rangeQuery({ ...r, from, to }, rowAttributes)

/** The timestamp a date index's sort key (`<ISO date>#<id>`) starts with, or NaN. */
const timeOf = (sortKey: string): number => Date.parse(sortKey.slice(0, sortKey.indexOf('#')))

/**
 * The range cut into at most `count` slices of equal time between its first and last keys, in
 * ascending key order. Each cut is a bare ISO date: every key is `<date>#<id>`, so none equals a
 * cut, and a key of the cut's very date falls after it: the slices never overlap and miss nothing.
 * A range whose keys are not dates, or hold one date only, is one slice.
 */
export function sliceBounds(
  from: string,
  to: string,
  firstKey: string,
  lastKey: string,
  count: number,
): (readonly [string, string])[] {
  const start = timeOf(firstKey)
  const end = timeOf(lastKey)
  if (!(end > start) || count < 2) return [[from, to]]
  const cuts: string[] = []
  for (let i = 1; i < count; i++) {
    const cut = new Date(start + ((end - start) * i) / count).toISOString()
    if (cut > from && cut < to && cut !== cuts.at(-1)) cuts.push(cut)
  }
  const edges = [from, ...cuts, to]
  return cuts.length === 0 ? [[from, to]] : edges.slice(1).map((edge, i) => [edges[i] as string, edge])
}

/** The range's first key in `order` (its filter aside: slices are cut in time), or undefined when empty. */
async function endKey(r: KeyRange, order: 'asc' | 'desc'): Promise<string | undefined> {
  const out = await query({ ...rangeQuery({ ...r, filter: undefined, order }, [r.index.sk]), Limit: 1 })
  const key = out.Items?.[0]?.[r.index.sk]
  return typeof key === 'string' ? key : undefined
}

/** Every page of one Query, decoded from DynamoDB's own form, following its cursor. */
export async function* pagesOf<T>(
  params: Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey'>,
  decode: (item: RawItem) => T,
  pageSize = EXPORT_PAGE_SIZE,
): AsyncGenerator<T[]> {
  let start: RawPage['next']
  do {
    const page = await queryRaw({ ...params, Limit: pageSize }, start)
    const items = page.items.map(decode)
    if (items.length > 0) yield items
    start = page.next
  } while (start)
}

/** Every entry of a date range, in its order: its slices read a few at a time, ahead. */
export async function* slicedPages(r: KeyRange): AsyncGenerator<RowEnrollment[]> {
  const [first, last] = await Promise.all([endKey(r, 'asc'), endKey(r, 'desc')])
  if (first === undefined || last === undefined) return
  const slices = sliceBounds(r.from, r.to, first, last, exportReads.slices)
  if (r.order === 'desc') slices.reverse()
  yield* concatAhead(
    slices.map(
      ([from, to]) =>
        () =>
          pagesOf(keyRangeParams(r, from, to), toRowEnrollment),
    ),
    exportReads.width,
    exportReads.depth,
  )
}

export const completionPages = (tenant: TenantContext, q: CompletionsRange) =>
  slicedPages(completionsKeyRange(tenant, q))

export const enrollmentPages = (tenant: TenantContext, q: EnrolledRange) =>
  slicedPages(enrolledKeyRange(tenant, q))

/** Every assignment in rpt1 order, as the unfiltered compliance report lists them: one range, read ahead. */
export function assignmentPages(tenant: TenantContext): AsyncGenerator<RowEnrollment[]> {
  const index = reportIndexes.assignments
  const params = {
    IndexName: index.name,
    ...queryExpression({ key: cond.eq(index.pk, keys.assignmentsIndexPk(tenant)), project: rowAttributes }),
  }
  return concatAhead([() => pagesOf(params, toRowEnrollment)], 1, exportReads.depth)
}
