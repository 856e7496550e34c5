/**
 * The one retry of an optimistic change: read, decide, write conditioned on what was read; when the
 * write is refused because the item changed meanwhile, read again and decide again. Each lost race
 * means another writer won, so a few tries with jittered backoff let every racer through.
 */
import { WriteRefused } from './store-errors.ts'

export interface RetryOptions {
  /** How many times to run `attempt` in all. */
  readonly tries?: number
  /** Whether the error means "changed meanwhile": by default a refusal named `stale`. */
  readonly isConflict?: (err: unknown) => boolean
  /**
   * The longest pause between two tries. The backoff doubles per lost race, so a change that
   * expects many racers (appends to one course) caps it to keep its many tries short.
   */
  readonly maxDelayMs?: number
}

export const isStale = (err: unknown): boolean => err instanceof WriteRefused && err.has('stale')

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * @returns what `attempt` returns on the first try that is not a conflict
 * @throws the last conflict when every try lost, or any other error at once
 * @example
 * await retryOnConflict(async () => saveUser(tenant, decide(await getUser(tenant, id, { consistent: true }))))
 */
export async function retryOnConflict<T>(
  attempt: (tryNumber: number) => Promise<T>,
  { tries = 4, isConflict = isStale, maxDelayMs = 1_000 }: RetryOptions = {},
): Promise<T> {
  for (let n = 0; ; n++) {
    try {
      return await attempt(n)
    } catch (err) {
      if (!isConflict(err) || n + 1 >= tries) throw err
      await sleep(Math.random() * Math.min(maxDelayMs, 10 * 2 ** n))
    }
  }
}
