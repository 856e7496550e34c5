/**
 * The store's one family of errors. Each has a `name` and a `reason`, so a log line says what
 * happened (`WriteRefused` / `stale`, `MalformedItem` / `decode`) instead of `Error`. Services turn
 * them into domain errors (shared/domain/errors.ts); they never reach a response as they are.
 */

export type StoreErrorReason = 'refused' | 'malformed_item'

export abstract class StoreError extends Error {
  abstract readonly reason: StoreErrorReason
  constructor(message: string, options?: ErrorOptions) {
    super(message, options)
    this.name = new.target.name
  }
}

/**
 * A conditional write did not hold. `refusals` names what each failed condition stood for (the
 * `refusal` of its step), in step order, so callers read a refusal by name, never by position.
 */
export class WriteRefused<R = string> extends StoreError {
  readonly reason = 'refused'
  constructor(
    readonly refusals: readonly R[],
    options?: ErrorOptions,
  ) {
    const names = refusals.map((r) => (typeof r === 'string' ? r : JSON.stringify(r)))
    super(`Write refused: ${names.join(', ') || 'a condition without a refusal'}`, options)
  }
  /** Whether `refusal` is among them; a refusal such as `{ row: 3, kind: 'duplicate' }` by its fields. */
  has(refusal: R): boolean {
    return this.refusals.some((r) => sameRefusal(r, refusal))
  }
}

/** Refusals are names or flat records of names and numbers: equal when every field is. */
function sameRefusal(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false
  const fields = new Map(Object.entries(b))
  const own = Object.entries(a)
  return own.length === fields.size && own.every(([k, v]) => fields.has(k) && fields.get(k) === v)
}

/**
 * Whether `err` is a write refused for `refusal`. Name the write's refusals as the type argument,
 * so a misspelt refusal does not compile: `isRefused<TenantRefusal>(err, 'slug_taken')`.
 */
export function isRefused<R>(err: unknown, refusal: NoInfer<R>): err is WriteRefused<R> {
  return err instanceof WriteRefused && err.has(refusal)
}

/** A stored item does not have the shape its entity needs: a bug or a bad migration, never input. */
export class MalformedItem extends StoreError {
  readonly reason = 'malformed_item'
  constructor(
    readonly entity: string,
    readonly key: { readonly pk: unknown; readonly sk: unknown },
    problem: string,
  ) {
    super(`Malformed ${entity} item (${String(key.pk)} / ${String(key.sk)}): ${problem}`)
  }
}
