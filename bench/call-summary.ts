/** Totals of a request's DynamoDB calls: by operation, middleware against handler, and SDK attempts. */
import type { DbCall } from '../shared/store/core/metrics.ts'
import { labelCalls, type LabelledCall } from './db-costs.ts'
import type { SdkAttempt } from './sdk-probe.ts'
import { round } from './stats.ts'

export interface Cost {
  readonly calls: number
  readonly rcu: number
  readonly wcu: number
}

export interface OpCost extends Cost {
  readonly op: string
}

export interface CallSummary {
  /** In the order each operation first appears. */
  readonly byOp: readonly OpCost[]
  readonly totals: Cost
  /** The calls after the middlewares' (tenant, API key, minute window, monthly usage). */
  readonly handler: Cost
  /** HTTP attempts the client sent, recorded by the metrics or not. */
  readonly attempts: number
  /** Attempts that failed and were not recorded, by `operation outcome`. */
  readonly failedAttempts: Record<string, number>
  /** Items carried by the successful TransactWriteItems: in all, and in the largest. */
  readonly transactItems: { readonly total: number; readonly max: number }
}

export function costOf(calls: readonly DbCall[]): Cost {
  return {
    calls: calls.length,
    rcu: round(calls.reduce((a, c) => a + c.rcu, 0)),
    wcu: round(calls.reduce((a, c) => a + c.wcu, 0)),
  }
}

export function summarizeCalls(
  calls: readonly DbCall[],
  attempts: readonly SdkAttempt[],
): { labelled: LabelledCall[]; summary: CallSummary } {
  const labelled = labelCalls(calls)
  const ops = [...new Set(calls.map((c) => c.op))]
  const failedAttempts: Record<string, number> = {}
  for (const a of attempts) {
    if (a.outcome === 'ok') continue
    const key = `${a.op} ${a.outcome}`
    failedAttempts[key] = (failedAttempts[key] ?? 0) + 1
  }
  const txItems = attempts.flatMap((a) => (a.outcome === 'ok' && a.items !== undefined ? [a.items] : []))
  return {
    labelled,
    summary: {
      byOp: ops.map((op) => ({ op, ...costOf(calls.filter((c) => c.op === op)) })),
      totals: costOf(calls),
      handler: costOf(labelled.filter((c) => c.label === 'handler')),
      attempts: attempts.length,
      failedAttempts,
      transactItems: {
        total: txItems.reduce((a, n) => a + n, 0),
        max: txItems.reduce((a, n) => Math.max(a, n), 0),
      },
    },
  }
}
