/**
 * The hour histograms of the enrollments and completions reports (docs/decisions/0026): one item
 * per kind and UTC day (`RPTHOUR#<kind>#<yyyy-mm-dd>`, attributes `h<hh>_<status or pass/fail>`),
 * moved by ADD in the transaction of every enrollment write. A date range's total is its whole
 * hours summed from one Query of day items plus a COUNT of each part of an hour at its ends.
 */
import type { Enrollment } from '../../domain/enrollments/enrollment.ts'
import {
  daysOf,
  hourDeltas,
  rangeParts,
  sumHours,
  type RangeKind,
} from '../../domain/reports/range-histograms.ts'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import { queryAll, type Item } from '../core/db.ts'
import { cond, queryExpression } from '../core/expression.ts'
import { keys } from '../core/keys.ts'
import { addSteps } from '../core/transaction.ts'
import { enrollmentWrites, type Projection } from './projection.ts'

export const rangeKinds: readonly RangeKind[] = ['enrolled', 'completed']

/** One ADD per kind and day whose hours move: a reactivated row leaves its old enrollment and completion days. */
export const rangeHistogramProjection: Projection = {
  name: 'hour histograms',
  movesFor: (tenant, change) => ({
    steps: rangeKinds.flatMap((kind) =>
      [...hourDeltas(kind, enrollmentWrites(change))].flatMap(([day, add]) =>
        addSteps(keys.rangeHours(tenant, kind, day), add, { type: 'range_histogram', kind, day }),
      ),
    ),
  }),
}

/** Whether an item is one of these histograms' (the bench seeding writes them whole instead). */
export const isRangeHoursKey = (sk: unknown): boolean => typeof sk === 'string' && sk.startsWith('RPTHOUR#')

export function rangeDaysParams(tenant: TenantContext, kind: RangeKind, first?: string, last?: string) {
  const from = keys.rangeHours(tenant, kind, first ?? '')
  const to = keys.rangeHours(tenant, kind, last ?? '~')
  return queryExpression({ key: cond.and(cond.eq('pk', from.pk), cond.between('sk', from.sk, to.sk)) })
}

/**
 * The size of a range of one kind: its whole hours from the histogram, each edge by `countEdge`
 * (a COUNT of the report's own index within the part of an hour, with the report's filter); and
 * with a bucket, its share of the whole hours' entries.
 */
export async function rangeTotal(
  tenant: TenantContext,
  kind: RangeKind,
  range: { readonly after?: string; readonly before?: string; readonly bucket?: string },
  countEdge: (edge: { after?: string; before?: string }) => Promise<number>,
): Promise<{ total: number; share?: number }> {
  const parts = rangeParts(range.after, range.before)
  const hours = parts.hours
  const [days, ...edges] = await Promise.all([
    hours ? readDays(tenant, kind, daysOf(hours)) : new Map<string, Item>(),
    ...parts.edges.map(countEdge),
  ])
  const whole = hours ? sumHours(days, hours.from, hours.to, range.bucket) : 0
  const total = edges.reduce((t, n) => t + n, whole)
  // The bucket's share of the whole hours: what a filtered page's read is sized by.
  const all = hours && range.bucket !== undefined ? sumHours(days, hours.from, hours.to) : 0
  return all > 0 ? { total, share: whole / all } : { total }
}

async function readDays(
  tenant: TenantContext,
  kind: RangeKind,
  span: { first?: string; last?: string },
): Promise<Map<string, Item>> {
  const items = await queryAll(rangeDaysParams(tenant, kind, span.first, span.last))
  return new Map(items.flatMap((i) => (typeof i.day === 'string' ? [[i.day, i] as const] : [])))
}

/** The histograms of a freshly seeded tenant (bench seeding), as the writes would leave them. */
export function seedRangeHistogramItems(tenant: TenantContext, enrollments: readonly Enrollment[]): Item[] {
  const writes = enrollments.map((after) => ({ before: undefined, after }))
  return rangeKinds.flatMap((kind) =>
    [...hourDeltas(kind, writes)].map(([day, attrs]) => ({
      ...keys.rangeHours(tenant, kind, day),
      type: 'range_histogram',
      kind,
      day,
      ...attrs,
    })),
  )
}
