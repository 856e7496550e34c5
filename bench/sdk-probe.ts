/**
 * Every call the product's DynamoDB sender makes inside a probe, successful or not (its retries of
 * a throttled or unanswered attempt together, as one). The product's metrics record a call only
 * once it succeeds, so a transaction cancelled for a conflict and sent again shows here and not
 * there: the difference is work the metrics do not see.
 */
import { AsyncLocalStorage } from 'node:async_hooks'

export interface SdkAttempt {
  readonly op: string
  /** `ok`, or the error's name with the transaction's cancellation codes, if any. */
  readonly outcome: string
  /** How many items a TransactWriteItems carried. */
  readonly items?: number
  /** When the attempt was sent and when its answer came (performance.now(), ms). */
  readonly startMs: number
  readonly endMs: number
}

const scope = new AsyncLocalStorage<SdkAttempt[]>()
let installed = false

function outcomeOf(err: unknown): string {
  if (!(err instanceof Error)) return 'error'
  const reasons = (err as { CancellationReasons?: { Code?: string }[] }).CancellationReasons
  const codes = [...new Set((reasons ?? []).map((r) => r.Code ?? 'None'))].filter((c) => c !== 'None')
  return codes.length ? `${err.name}(${codes.join(',')})` : err.name
}

/**
 * Wraps the product's DynamoDB calls with the probe, once; outside a probe it records nothing.
 * The client is imported here, after the bench has pointed config at its stores.
 */
export async function installSdkProbe(): Promise<void> {
  if (installed) return
  installed = true
  const { wrapDynamoDbCalls } = await import('../test/helpers/dynamodb-calls.ts')
  wrapDynamoDbCalls((next) => async (op, input) => {
    const attempts = scope.getStore()
    const items = (input as { TransactItems?: unknown[] }).TransactItems?.length
    const startMs = performance.now()
    const record = (outcome: string) => {
      const timed = { op, outcome, startMs, endMs: performance.now() }
      attempts?.push(items === undefined ? timed : { ...timed, items })
    }
    try {
      const out = await next(op, input)
      record('ok')
      return out
    } catch (err) {
      record(outcomeOf(err))
      throw err
    }
  })
}

/**
 * The longest run of attempts each sent only after the one before it answered: the DynamoDB round
 * trips a request waits for one after another (attempts that overlap count once).
 */
export function sequentialRoundTrips(attempts: readonly SdkAttempt[]): number {
  const sorted = [...attempts].sort((a, b) => a.startMs - b.startMs)
  const depth: number[] = []
  sorted.forEach((a, i) => {
    let best = 0
    for (let j = 0; j < i; j++) {
      const before = sorted[j]
      if (before && before.endMs <= a.startMs) best = Math.max(best, depth[j] ?? 0)
    }
    depth.push(best + 1)
  })
  return Math.max(0, ...depth)
}

export async function withSdkProbe<T>(fn: () => Promise<T>): Promise<{ value: T; attempts: SdkAttempt[] }> {
  const attempts: SdkAttempt[] = []
  const value = await scope.run(attempts, fn)
  return { value, attempts }
}
