/**
 * The tenant-wide report reads of reports-store, page after page by the Query's own cursor
 * (LastEvaluatedKey): an export reads each entry once, where offset pages would re-read every
 * entry before the page, and holds one page at a time.
 */
import type { QueryCommandInput } from '@aws-sdk/lib-dynamodb'
import type { Enrollment } from '../domain/enrollments/enrollment.ts'
import type { TenantContext } from '../domain/tenants/tenant.ts'
import { query } from './db.ts'
import { toEnrollment } from './enrollment-items.ts'
import {
  assignmentsParams,
  completionsRangeParams,
  enrolledRangeParams,
  type CompletionsRange,
  type EnrolledRange,
} from './reports-store.ts'

/** Entries a page reads (DynamoDB also stops a page at 1 MB). */
export const EXPORT_PAGE_SIZE = 1000

export async function* pagesOf(
  params: Omit<QueryCommandInput, 'TableName'>,
  pageSize = EXPORT_PAGE_SIZE,
): AsyncGenerator<Enrollment[]> {
  let start: Record<string, unknown> | undefined
  do {
    const out = await query({ ...params, Limit: pageSize, ...(start ? { ExclusiveStartKey: start } : {}) })
    const items = (out.Items ?? []).map(toEnrollment)
    if (items.length > 0) yield items
    start = out.LastEvaluatedKey
  } while (start)
}

export const completionPages = (tenant: TenantContext, q: CompletionsRange) =>
  pagesOf(completionsRangeParams(tenant, q))

export const enrollmentPages = (tenant: TenantContext, q: EnrolledRange) =>
  pagesOf(enrolledRangeParams(tenant, q))

/** Every assignment in rpt1 order, as the unfiltered compliance report lists them. */
export const assignmentPages = (tenant: TenantContext) => pagesOf(assignmentsParams(tenant))
