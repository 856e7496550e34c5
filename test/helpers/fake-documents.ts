/**
 * Stands in for the product's DynamoDB sender (`documents.send`, shared/store/documents.ts) in unit
 * tests that inject a fault or a reply without a store: rules by operation, optionally by a part
 * of the input, answered in items' terms. A rule with an input to match goes before one without,
 * and the later of two alike rules wins; a call no rule answers resolves to undefined.
 */
import { documents, type DocumentOperations } from '../../shared/store/documents.ts'

type Op = keyof DocumentOperations
type Input<O extends Op> = DocumentOperations[O][0]
type Output<O extends Op> = Partial<DocumentOperations[O][1]>
type Behaviour<O extends Op> = (input: Input<O>) => Promise<Output<O>>

export class FakeRule<O extends Op> {
  readonly queued: Behaviour<O>[] = []
  always: Behaviour<O> | undefined
  constructor(
    readonly op: O,
    readonly match: unknown,
  ) {}
  resolves(out: Output<O>): this {
    this.always = () => Promise.resolve(out)
    return this
  }
  resolvesOnce(out: Output<O>): this {
    this.queued.push(() => Promise.resolve(out))
    return this
  }
  rejects(err: unknown): this {
    this.always = () => Promise.reject(err instanceof Error ? err : new Error(String(err)))
    return this
  }
  rejectsOnce(err: unknown): this {
    this.queued.push(() => Promise.reject(err instanceof Error ? err : new Error(String(err))))
    return this
  }
  callsFake(fn: Behaviour<O>): this {
    this.always = fn
    return this
  }
  callsFakeOnce(fn: Behaviour<O>): this {
    this.queued.push(fn)
    return this
  }
}

/** Whether every field `expected` names holds the same value in `actual` (objects compared in part). */
function matches(actual: unknown, expected: unknown): boolean {
  if (expected === null || typeof expected !== 'object') return Object.is(actual, expected)
  if (actual === null || typeof actual !== 'object') return false
  return Object.entries(expected).every(([k, v]) => matches((actual as Record<string, unknown>)[k], v))
}

export interface FakeDocuments {
  on<O extends Op>(op: O, match?: Partial<Input<O>> | Record<string, unknown>): FakeRule<O>
  /** The inputs of the calls made of `op`, in order. */
  calls<O extends Op>(op: O): Input<O>[]
  /** Every call's operation and the keys (or item keys) it addressed, in order. */
  all(): { readonly op: Op; readonly input: unknown }[]
  /** Forgets the calls, keeps the rules. */
  resetHistory(): void
  /** Forgets every rule and call. */
  reset(): void
  /** Puts the real sender back. */
  restore(): void
}

export function fakeDocuments(): FakeDocuments {
  let rules: FakeRule<Op>[] = []
  const sent: { op: Op; input: unknown }[] = []
  // Replaced by hand, not with vi.spyOn: a test's vi.restoreAllMocks() must not put the real one back.
  const real = documents.send
  documents.send = (async (op: Op, input: unknown) => {
    sent.push({ op, input })
    const candidates = rules.filter((r) => r.op === op && (r.match === undefined || matches(input, r.match)))
    const ordered = [
      ...candidates.filter((r) => r.match !== undefined).reverse(),
      ...candidates.filter((r) => r.match === undefined).reverse(),
    ]
    for (const rule of ordered) {
      const behaviour = rule.queued.shift() ?? rule.always
      if (behaviour) return behaviour(input as never)
    }
    return undefined
  }) as typeof documents.send
  return {
    on(op, match) {
      const rule = new FakeRule(op, match)
      rules.push(rule as unknown as FakeRule<Op>)
      return rule
    },
    calls: (op) => sent.filter((c) => c.op === op).map((c) => c.input as never),
    all: () => [...sent],
    resetHistory() {
      sent.length = 0
    },
    reset() {
      rules = []
      sent.length = 0
    },
    restore() {
      documents.send = real
    },
  }
}
