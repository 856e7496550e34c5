/**
 * Idempotency keys on keyed POSTs (docs/decisions/0038-idempotency-keys.md): what a key may be,
 * what makes two requests "the same", and what a request finds when its key was used before.
 */
import { createHash } from 'node:crypto'
import { ValidationError } from './errors.ts'

/** Kept a day, as DynamoDB TTL removes it (a record past it is treated as absent before then). */
export const IDEMPOTENCY_RETENTION_SECONDS = 86_400
/**
 * How long a request holds its key while it runs: the API Lambdas' timeout (30 s, lib/lms-stack.ts)
 * and a margin. A request that died holding it (its container killed) blocks the key no longer.
 */
export const IDEMPOTENCY_LEASE_MS = 35_000

const KEY = /^[\x20-\x7e]{1,255}$/

/** The header's value, checked; undefined without the header. */
export function idempotencyKeyOf(header: string | undefined): string | undefined {
  if (header === undefined) return undefined
  if (!KEY.test(header))
    throw new ValidationError(
      'Idempotency-Key',
      'Idempotency-Key: must be 1 to 255 printable ASCII characters',
    )
  return header
}

/** The JSON value with every object's keys in order: two bodies that parse alike hash alike. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical)
  if (value === null || typeof value !== 'object') return value
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((k) => [k, canonical((value as Record<string, unknown>)[k])]),
  )
}

/** Method, path and parsed body (null when none), hashed: what a reused key must come with. */
export function requestHash(method: string, path: string, body: unknown): string {
  return createHash('sha256')
    .update(JSON.stringify([method, path, canonical(body ?? null)]))
    .digest('base64url')
}

/** A kept answer: status, the handler's own headers and the body, exactly as first sent. */
export interface KeptResponse {
  readonly statusCode: number
  readonly headers: Readonly<Record<string, string>>
  readonly body: string | undefined
}

export interface IdempotencyRecord {
  readonly requestHash: string
  /** Set once the first request finished with an answer worth keeping. */
  readonly response: KeptResponse | undefined
  readonly lockedUntilMs: number
  readonly expiresAtSeconds: number
}

export type Finding =
  | { readonly kind: 'absent' }
  | { readonly kind: 'replay'; readonly response: KeptResponse }
  | { readonly kind: 'mismatch' }
  | { readonly kind: 'in-progress' }

/** What a request with `hash` finds in `record` at `nowMs`; an expired record or lease is absent. */
export function findingOf(record: IdempotencyRecord | undefined, hash: string, nowMs: number): Finding {
  if (!record || record.expiresAtSeconds * 1000 <= nowMs) return { kind: 'absent' }
  if (record.response === undefined && record.lockedUntilMs <= nowMs) return { kind: 'absent' }
  if (record.requestHash !== hash) return { kind: 'mismatch' }
  if (record.response === undefined) return { kind: 'in-progress' }
  return { kind: 'replay', response: record.response }
}

/** 2xx and 4xx are kept; 5xx (a retry runs again) and 429 (the limit, not the request) are not. */
export const isKept = (statusCode: number): boolean =>
  statusCode >= 200 && statusCode < 500 && statusCode !== 429
