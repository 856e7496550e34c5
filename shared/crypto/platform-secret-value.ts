/**
 * The text of the billing orchestrator's platform secret, in Secrets Manager or a local file.
 * Before any rotation it is the secret itself (a plain string, id `k0`); a rotation makes it
 *
 * ```json
 * {"format":"lms-platform-secret/1","id":"k1","current":"…","previous":"…","previous_until":"<ISO>"}
 * ```
 *
 * and both values are accepted until `previous_until`, so the orchestrator can switch to the new
 * one without a window where it is locked out; then only the current one is.
 */
import * as v from 'valibot'
import { ORIGINAL_KEY_ID } from './key-ring.ts'

const FORMAT = 'lms-platform-secret/1'

const Rotated = v.object({
  format: v.literal(FORMAT),
  id: v.pipe(v.string(), v.regex(/^k(0|[1-9]\d{0,8})$/)),
  current: v.pipe(v.string(), v.minLength(16)),
  previous: v.optional(v.pipe(v.string(), v.minLength(1))),
  previous_until: v.optional(v.pipe(v.string(), v.isoTimestamp())),
})

export interface PlatformSecretValue {
  /** The id of the current value: `k0` before any rotation, then `k1`, `k2`… */
  readonly id: string
  readonly current: string
  /** The value it replaced, accepted until `previousUntil`. */
  readonly previous?: { readonly value: string; readonly until: string }
}

/** @throws Error naming what is wrong, never the secret */
export function parsePlatformSecret(text: string): PlatformSecretValue {
  const trimmed = text.trim()
  if (!trimmed.startsWith('{')) return { id: ORIGINAL_KEY_ID, current: trimmed }
  let json: unknown
  try {
    json = JSON.parse(trimmed)
  } catch {
    throw new Error('The platform secret is not valid JSON')
  }
  const parsed = v.safeParse(Rotated, json)
  if (!parsed.success) throw new Error(`The platform secret is malformed: ${parsed.issues[0].message}`)
  const { id, current, previous, previous_until: until } = parsed.output
  return previous && until ? { id, current, previous: { value: previous, until } } : { id, current }
}

export function platformSecretText(value: PlatformSecretValue): string {
  return JSON.stringify({
    format: FORMAT,
    id: value.id,
    current: value.current,
    ...(value.previous ? { previous: value.previous.value, previous_until: value.previous.until } : {}),
  })
}

/**
 * `newSecret` becomes current; the current one stays accepted until `previousUntil`.
 *
 * @example rotatePlatformSecret(parsePlatformSecret('old'), 'new…', '2030-01-02T00:00:00.000Z').id // 'k1'
 */
export function rotatePlatformSecret(
  value: PlatformSecretValue,
  newSecret: string,
  previousUntil: string,
): PlatformSecretValue {
  const id = `k${Number(value.id.slice(1)) + 1}`
  return { id, current: newSecret, previous: { value: value.current, until: previousUntil } }
}

/** The values a request may present at `now`: the current one, and the previous within its window. */
export function acceptedValues(value: PlatformSecretValue, now: Date): string[] {
  const previous =
    value.previous && Date.parse(value.previous.until) > now.getTime() ? [value.previous.value] : []
  return [value.current, ...previous]
}
