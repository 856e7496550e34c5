/**
 * Per-request accounting of DynamoDB calls and consumed capacity. Every store call records into
 * the request's scope (AsyncLocalStorage), so the request log line and the benchmark can say what
 * a request cost without threading a collector through every function.
 */
import { AsyncLocalStorage } from 'node:async_hooks'
import type { ConsumedCapacity } from '@aws-sdk/client-dynamodb'

export interface DbCall {
  readonly op: string
  readonly rcu: number
  readonly wcu: number
}

export interface DbMetrics {
  readonly calls: DbCall[]
}

const scope = new AsyncLocalStorage<DbMetrics>()

/** Runs fn in a metrics scope; inside an existing scope (a benchmark's), calls record there. */
export function runWithDbMetrics<T>(fn: () => Promise<T>): { metrics: DbMetrics; done: Promise<T> } {
  const outer = scope.getStore()
  if (outer) return { metrics: outer, done: fn() }
  const metrics: DbMetrics = { calls: [] }
  return { metrics, done: scope.run(metrics, fn) }
}

export function currentDbMetrics(): DbMetrics | undefined {
  return scope.getStore()
}

export function recordDbCall(op: string, consumed: ConsumedCapacity | ConsumedCapacity[] | undefined): void {
  const metrics = scope.getStore()
  if (!metrics) return
  const list = consumed === undefined ? [] : Array.isArray(consumed) ? consumed : [consumed]
  let rcu = 0
  let wcu = 0
  for (const c of list) {
    // DynamoDB Local reports only CapacityUnits; split it by the kind of operation.
    const read = c.ReadCapacityUnits ?? (isReadOp(op) ? (c.CapacityUnits ?? 0) : 0)
    const write = c.WriteCapacityUnits ?? (isReadOp(op) ? 0 : (c.CapacityUnits ?? 0))
    rcu += read
    wcu += write
  }
  metrics.calls.push({ op, rcu, wcu })
}

function isReadOp(op: string): boolean {
  return (
    op === 'GetItem' || op === 'Query' || op === 'BatchGetItem' || op === 'TransactGetItems' || op === 'Scan'
  )
}

export function summarize(metrics: DbMetrics): { calls: number; rcu: number; wcu: number } {
  return metrics.calls.reduce(
    (acc, c) => ({ calls: acc.calls + 1, rcu: acc.rcu + c.rcu, wcu: acc.wcu + c.wcu }),
    { calls: 0, rcu: 0, wcu: 0 },
  )
}
