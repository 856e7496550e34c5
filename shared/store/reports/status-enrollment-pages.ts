/**
 * The enrollments report filtered by status, tenant-wide (decision 0025): a Limit read of rpt7,
 * the status's own keys-only index by enrollment time (between the date bounds, if any), then the
 * page's enrollments by key. A status filter on gsi1 read every enrollment of the range until the
 * page filled, about 2 KB each whatever their status.
 */
import type { Enrollment } from '../../domain/enrollments/enrollment.ts'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import { pageByKey } from './course-report-pages.ts'
import { keys } from '../core/keys.ts'
import { reportIndexes } from './report-indexes.ts'
import { dateBounds, rangeQuery, type EnrolledRange } from './reports-store.ts'

export function statusEnrollmentsParams(
  tenant: TenantContext,
  q: EnrolledRange & { readonly status: string },
) {
  const [from, to] = dateBounds(q.after, q.before)
  const pk = keys.statusEnrollmentsIndexPk(tenant, q.status)
  return rangeQuery({ index: reportIndexes.statusEnrollments, pk, from, to, order: q.order })
}

export async function pageOfStatusEnrollments(
  tenant: TenantContext,
  q: EnrolledRange & { readonly status: string },
  offset: number,
  limit: number,
  total: number | Promise<number>,
): Promise<{ items: Enrollment[]; total: number }> {
  const [items, count] = await Promise.all([
    pageByKey(statusEnrollmentsParams(tenant, q), offset, limit),
    total,
  ])
  return { items, total: count }
}
