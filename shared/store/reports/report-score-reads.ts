/**
 * Completions by score (docs/decisions/0023): rpt3 holds every completion of the tenant in score
 * order, so a page of the completions report sorted by score is a Limit read of the index instead
 * of every completion read and sorted. pass_fail is a filter on it; a date range is not (the
 * range's own index, gsi3, reads less: reports-store allCompletions).
 */
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import { cond, queryExpression } from '../core/expression.ts'
import { keys } from '../core/keys.ts'
import { reportIndexes } from './report-indexes.ts'
import { filterOn } from './reports-store.ts'

export interface ScoresRange {
  readonly passFail?: 'pass' | 'fail'
  readonly order: 'asc' | 'desc'
}

export function completionsByScoreParams(tenant: TenantContext, q: ScoresRange) {
  const index = reportIndexes.scores
  return {
    IndexName: index.name,
    ...queryExpression({
      key: cond.eq(index.pk, keys.scoresIndexPk(tenant)),
      filter: filterOn('pass_fail', q.passFail),
    }),
    ScanIndexForward: q.order === 'asc',
  }
}
