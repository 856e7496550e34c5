/**
 * Secrets Manager reads shared by the key holders, through the product's client
 * (shared/aws/secrets-manager.ts), and the cache that keeps each secret for a few minutes.
 */
import { GetSecretValueCommand } from '@aws-sdk/client-secrets-manager'
import { secretsManager } from '../aws/secrets-manager.ts'

/** A secret's string value; a refusal names the error type, never the secret. */
export async function secretString(secretArn: string): Promise<string> {
  const out = await secretsManager.send(new GetSecretValueCommand({ SecretId: secretArn }))
  if (!out.SecretString) throw new Error('The secret is empty')
  return out.SecretString
}

/** A cached secret: read now, read again when it is older than its age limit, or on demand. */
export interface Refreshing<T> {
  /** The cached value, fetched first when there is none or it has grown older than the limit. */
  (): Promise<T>
  /**
   * Fetched now (a value sealed under a key this container has not seen yet); at most once per
   * `minReloadMs`, so a value that names no real key cannot make every call read the secret.
   */
  reload(): Promise<T>
}

export interface RefreshOptions {
  /** How long a fetched value is used before it is fetched again. */
  readonly maxAgeMs: number
  /** The least time between two forced reloads. */
  readonly minReloadMs?: number
  /** The clock (tests inject theirs). */
  readonly now?: () => number
}

/**
 * Kept for `maxAgeMs`, then fetched again, so a rotated secret reaches a warm container within
 * minutes instead of when the container dies. A failed first fetch is tried again by the next
 * caller; a failed refresh keeps the value already held (a key ring only ever grows, and the
 * billing secret's previous value stays valid through its window) and is tried again a little later.
 */
export function refreshing<T>(fetch: () => Promise<T>, options: RefreshOptions): Refreshing<T> {
  const now = options.now ?? Date.now
  const minReloadMs = options.minReloadMs ?? 10_000
  let held: { value: T; at: number } | undefined
  let pending: Promise<T> | undefined
  let lastReload = Number.NEGATIVE_INFINITY

  const fetchNow = (): Promise<T> => {
    pending ??= fetch()
      .then((value) => {
        held = { value, at: now() }
        return value
      })
      .catch((err: unknown) => {
        if (!held) throw err
        // Served as it is for `minReloadMs` more, then tried again: an outage of Secrets Manager
        // does not make every request wait for a read that fails.
        held.at = Math.max(held.at, now() - options.maxAgeMs + minReloadMs)
        return held.value
      })
      .finally(() => (pending = undefined))
    return pending
  }
  const get = (() => {
    if (held && now() - held.at < options.maxAgeMs) return Promise.resolve(held.value)
    return fetchNow()
  }) as Refreshing<T>
  get.reload = () => {
    if (held && now() - lastReload < minReloadMs) return Promise.resolve(held.value)
    lastReload = now()
    return fetchNow()
  }
  return get
}
