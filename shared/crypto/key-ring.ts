/**
 * A key ring: every key that may have sealed a value still stored, each under its id; the newest
 * seals, any opens (docs/decisions/0030-key-ids.md). Kept as the text of a secret (Secrets Manager
 * in AWS, a file locally):
 *
 * ```json
 * {"format":"lms-key-ring/1","keys":[{"id":"k0","secret":"…"},{"id":"k1","secret":"…"}]}
 * ```
 *
 * newest last. A text that is not such an object is a ring of one key, `k0`: the secret as it was
 * before rings existed, so values sealed before them open with it.
 */
import * as v from 'valibot'

/** The id of the key that sealed every value written before key ids: the secret's first value. */
export const ORIGINAL_KEY_ID = 'k0'
const FORMAT = 'lms-key-ring/1'

const KeyId = v.pipe(v.string(), v.regex(/^k(0|[1-9]\d{0,8})$/))
const RingText = v.object({
  format: v.literal(FORMAT),
  keys: v.pipe(
    v.array(v.object({ id: KeyId, secret: v.pipe(v.string(), v.minLength(1)) })),
    v.minLength(1),
    v.check((keys) => new Set(keys.map((k) => k.id)).size === keys.length, 'key ids must be unique'),
  ),
})

/** One key as its secret keeps it: the id, and the string the key is derived from. */
export interface RingEntry {
  readonly id: string
  readonly secret: string
}

/** The keys themselves, by id, and the id of the one that seals. */
export interface KeyRing {
  readonly newestId: string
  readonly keys: ReadonlyMap<string, Buffer>
}

/** @throws Error naming what is wrong with the ring, never a secret */
export function parseRing(text: string): RingEntry[] {
  const trimmed = text.trim()
  if (!trimmed.startsWith('{')) return [{ id: ORIGINAL_KEY_ID, secret: trimmed }]
  let json: unknown
  try {
    json = JSON.parse(trimmed)
  } catch {
    throw new Error('The key ring is not valid JSON')
  }
  const parsed = v.safeParse(RingText, json)
  if (!parsed.success) throw new Error(`The key ring is malformed: ${parsed.issues[0].message}`)
  return parsed.output.keys
}

export function ringText(entries: readonly RingEntry[]): string {
  return JSON.stringify({ format: FORMAT, keys: entries.map(({ id, secret }) => ({ id, secret })) })
}

/**
 * The ring with `secret` added as its newest key, under the next number: ids are never reused,
 * since a key leaves the ring only once no stored value names it.
 *
 * @example withKey(parseRing('old-secret'), 'new-secret').id // 'k1'
 */
export function withKey(entries: readonly RingEntry[], secret: string): { entries: RingEntry[]; id: string } {
  const next = Math.max(...entries.map((e) => Number(e.id.slice(1)))) + 1
  const id = `k${next}`
  return { entries: [...entries, { id, secret }], id }
}

/** The keys of a ring, each derived from its secret by the rule of the ring's source. */
export function keyRing(entries: readonly RingEntry[], derive: (secret: string) => Buffer): KeyRing {
  const last = entries.at(-1)
  if (!last) throw new Error('The key ring is empty')
  return { newestId: last.id, keys: new Map(entries.map((e) => [e.id, derive(e.secret)])) }
}
