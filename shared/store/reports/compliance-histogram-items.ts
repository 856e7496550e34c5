/**
 * The compliance histogram (docs/decisions/0023): assignments by certificate expiry, moved in the
 * transaction of every enrollment write. `none` and `never` are two attributes of the tenant's
 * counters item (`assign_none`, `assign_never`: no item more in the transaction); a dated expiry
 * is attribute `d<dd>` of its month's item `RPTEXPIRY#<yyyy-mm>`. The compliance report's totals
 * by status then read the counters, the months up to the window's end (one Query of small items)
 * and two COUNTs of rpt1 within a day (domain/reports/compliance-totals.ts does the sums).
 */
import * as v from 'valibot'
import { expiringWindowEnd } from '../../domain/reports/compliance.ts'
import {
  dayOf,
  expiryBucketDelta,
  type ExpiryBucket,
  type ExpiryHistogram,
} from '../../domain/reports/compliance-totals.ts'
import type { ComplianceStatus } from '../../domain/reports/rows.ts'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import { getItem, queryAll, queryCount, type Item } from '../core/db.ts'
import { decodeItem, withDefault } from '../core/decode.ts'
import { toEnrollmentCounters } from '../enrollments/enrollment-items.ts'
import { cond, queryExpression } from '../core/expression.ts'
import { keys } from '../core/keys.ts'
import { reportIndexes } from './report-indexes.ts'
import { addSteps, type Step } from '../core/transaction.ts'
import { enrollmentWrites, moveOnDay, type Projection } from './projection.ts'

/** The counters' share of a bucket delta (merged into the counters' ADD of the same transaction). */
export function expiryCounterDeltas(delta: ReadonlyMap<ExpiryBucket, number>): Record<string, number> {
  const out: Record<string, number> = {}
  const none = delta.get('none') ?? 0
  if (none !== 0) out.assign_none = none
  return out
}

/** One ADD per month the dated buckets of the delta fall in (none when nothing dated moves). */
export function expiryMonthSteps(
  tenant: TenantContext,
  delta: ReadonlyMap<ExpiryBucket, number>,
): Step<never>[] {
  const byMonth = new Map<string, Record<string, number>>()
  for (const [bucket, n] of delta) {
    if (bucket !== 'none' && bucket !== 'never' && n !== 0) moveOnDay(byMonth, bucket, n)
  }
  return [...byMonth].flatMap(([month, add]) =>
    addSteps(keys.expiryMonth(tenant, month), add, { type: 'expiry_histogram', month }),
  )
}

/** A reactivated row whose old completion had a dated expiry moves that month: one item per row at most. */
export const expiryHistogramProjection: Projection = {
  name: 'expiry histogram',
  movesFor: (tenant, change) => {
    const delta = expiryBucketDelta(enrollmentWrites(change))
    return { counters: expiryCounterDeltas(delta), steps: expiryMonthSteps(tenant, delta) }
  },
}

/** The month items from the first one up to `lastMonth` (`yyyy-mm`) included. */
export function expiryMonthsParams(tenant: TenantContext, lastMonth: string) {
  const { pk, sk } = keys.expiryMonth(tenant, lastMonth)
  const first = keys.expiryMonth(tenant, '').sk
  return queryExpression({ key: cond.and(cond.eq('pk', pk), cond.between('sk', first, sk)) })
}

/** How many certificates expire on `at`'s UTC day at or before `at` (rpt1 within that day). */
export function expiringOnDayUpToParams(tenant: TenantContext, at: string) {
  const index = reportIndexes.assignments
  return {
    IndexName: index.name,
    ...queryExpression({
      key: cond.and(
        cond.eq(index.pk, keys.assignmentsIndexPk(tenant)),
        cond.between(index.sk, `${dayOf(at)}T`, keys.sortKey(at, keys.missingDate)),
      ),
    }),
  }
}

const MonthItem = v.object({ month: v.string() })
const HistogramCounters = v.object({ assign_none: withDefault(v.number(), 0) })

function monthDays(item: Item): [string, number][] {
  const { month } = decodeItem('expiry histogram', MonthItem, item)
  return Object.entries(item)
    .filter(([k, n]) => /^d\d\d$/.test(k) && typeof n === 'number' && n !== 0)
    .map(([k, n]) => [`${month}-${k.slice(1)}`, n as number])
}

/** What complianceTotals needs at `asOf`: four reads in parallel. */
export async function readExpiryHistogram(tenant: TenantContext, asOf: string): Promise<ExpiryHistogram> {
  const windowEnd = expiringWindowEnd(asOf)
  const [counters, months, asOfDayUpTo, windowEndDayUpTo] = await Promise.all([
    getItem(keys.counters(tenant)),
    queryAll(expiryMonthsParams(tenant, windowEnd.slice(0, 7))),
    queryCount(expiringOnDayUpToParams(tenant, asOf)),
    queryCount(expiringOnDayUpToParams(tenant, windowEnd)),
  ])
  const { active, completed, expired } = toEnrollmentCounters(counters).byStatus
  const none = counters ? decodeItem('counters', HistogramCounters, counters).assign_none : 0
  return {
    assignments: active + completed + expired,
    none,
    byDay: new Map(months.flatMap(monthDays)),
    asOfDayUpTo,
    windowEndDayUpTo,
  }
}

/**
 * The rpt1 key range of one status at an `asOf` no completion is later than (no filter needed):
 * non-compliant is everything up to an expiry at asOf (no completion first), expiring soon the
 * expiries after asOf up to the window's end, compliant the later ones and those that never expire.
 */
export function currentStatusParams(tenant: TenantContext, status: ComplianceStatus, asOf: string) {
  const index = reportIndexes.assignments
  const after = (at: string) => keys.sortKey(at, keys.missingDate)
  const windowEnd = expiringWindowEnd(asOf)
  const range =
    status === 'non_compliant'
      ? cond.lt(index.sk, after(asOf))
      : status === 'expiring_soon'
        ? cond.between(index.sk, after(asOf), after(windowEnd))
        : cond.gt(index.sk, after(windowEnd))
  return {
    IndexName: index.name,
    ...queryExpression({ key: cond.and(cond.eq(index.pk, keys.assignmentsIndexPk(tenant)), range) }),
  }
}
