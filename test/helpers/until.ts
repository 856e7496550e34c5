/** Polling for tests that wait on workers: never a fixed sleep where a state can be awaited. */

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/**
 * Calls `fn` every 100 ms until `ok` holds or the time is up, and returns the last value. The
 * default limit only ends a wait that will never succeed: it is far above a busy machine's time.
 */
export async function until<T>(fn: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const v = await fn()
    if (ok(v) || Date.now() > deadline) return v
    await sleep(100)
  }
}
