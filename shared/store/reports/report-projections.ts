/**
 * Every report projection, in one list (docs/decisions/0034-report-projections.md). A writer asks
 * here for its change's steps and commits them in its own transaction, so every total stays exact
 * (0014, 0018). The report keys (report-indexes.ts) are not here: they are attributes of the
 * changed item itself, added where the enrollment and user items are built.
 */
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import type { Step } from '../core/transaction.ts'
import { counterStep, movesCounters } from '../tenants/counters.ts'
import { latestActivityProjection } from './activity-latest-items.ts'
import { expiryHistogramProjection } from './compliance-histogram-items.ts'
import { courseDayTallyProjection } from './course-day-tallies.ts'
import { courseTallyProjection } from './course-report-items.ts'
import type { Projection, ReportChange } from './projection.ts'
import { rangeHistogramProjection } from './range-histogram-items.ts'
import { statusCountersProjection } from './status-counters.ts'

export type { ReportChange } from './projection.ts'

export const reportProjections: readonly Projection[] = [
  statusCountersProjection,
  courseTallyProjection,
  expiryHistogramProjection,
  courseDayTallyProjection,
  rangeHistogramProjection,
  latestActivityProjection,
]

/**
 * The steps of `change` that need no read (of every projection, or of `projections` only: the
 * migrations' backfill leaves out those an old item was already counted in): `counters`, the one update of the COUNTERS item (or
 * none), for the writer to place among its own; `steps`, each condition refused as
 * `refusalOfWrite(the index of the write it guards)`.
 */
export function projectionSteps<R>(
  tenant: TenantContext,
  change: ReportChange,
  refusalOfWrite: (write: number) => R,
  projections: readonly Projection[] = reportProjections,
): { readonly counters: readonly Step<never>[]; readonly steps: readonly Step<R>[] } {
  const counters: Record<string, number> = {}
  const steps: Step<R>[] = []
  for (const projection of projections) {
    const moves = projection.movesFor?.(tenant, change) ?? {}
    for (const [name, n] of Object.entries(moves.counters ?? {})) counters[name] = (counters[name] ?? 0) + n
    for (const { item, refusal } of moves.steps ?? [])
      steps.push(refusal === undefined ? { item } : { item, refusal: refusalOfWrite(refusal) })
  }
  return { counters: movesCounters(counters) ? [counterStep<never>(tenant, counters)] : [], steps }
}

/** The steps of `change` conditioned on what they read first, each refused as `refusal` if it moved. */
export async function readProjectionSteps<R>(
  tenant: TenantContext,
  change: ReportChange,
  refusal: R,
  projections: readonly Projection[] = reportProjections,
): Promise<Step<R>[]> {
  const each = await Promise.all(projections.map((p) => p.readStepsFor?.(tenant, change, refusal) ?? []))
  return each.flat()
}
