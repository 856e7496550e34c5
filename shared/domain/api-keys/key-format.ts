/**
 * API key format: `lms_<env>_<32 base62 random><6 base62 CRC32 checksum>`, in the manner of
 * GitHub's tokens. The checksum lets a mistyped or random key be refused without a store read,
 * and the fixed prefix makes leaked keys findable by secret scanners.
 */
import { createHash, randomBytes } from 'node:crypto'
import { crc32 } from 'node:zlib'

export type KeyEnv = 'live' | 'test'

const SERVICE_PREFIX = 'lms'
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
const SECRET_LENGTH = 32
const CHECKSUM_LENGTH = 6
/** The part of a key that is kept in clear and shown in listings. */
export const VISIBLE_PREFIX_LENGTH = 12
const KEY_PATTERN = new RegExp(
  `^${SERVICE_PREFIX}_(live|test)_([0-9A-Za-z]{${SECRET_LENGTH}})([0-9A-Za-z]{${CHECKSUM_LENGTH}})$`,
)

function toBase62(value: number, width: number): string {
  let out = ''
  let n = value
  for (let i = 0; i < width; i++) {
    out = BASE62[n % 62] + out
    n = Math.floor(n / 62)
  }
  return out
}

function randomBase62(length: number): string {
  // Rejection sampling keeps every character uniformly distributed (256 is not a multiple of 62).
  let out = ''
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62]
    }
  }
  return out
}

function checksum(body: string): string {
  return toBase62(crc32(body), CHECKSUM_LENGTH)
}

export interface NewKey {
  readonly key: string
  readonly prefix: string
  readonly hash: string
}

export function generateKey(env: KeyEnv): NewKey {
  const body = `${SERVICE_PREFIX}_${env}_${randomBase62(SECRET_LENGTH)}`
  const key = body + checksum(body)
  return { key, prefix: key.slice(0, VISIBLE_PREFIX_LENGTH), hash: hashKey(key) }
}

/** SHA-256 is right for a 190-bit random secret: no dictionary to slow down, unlike a password. */
export function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex')
}

/** True when the key has our shape and its checksum matches: worth a store read. */
export function isWellFormedKey(key: string): boolean {
  const m = KEY_PATTERN.exec(key)
  if (!m) return false
  const body = `${SERVICE_PREFIX}_${m[1]}_${m[2]}`
  return checksum(body) === m[3]
}
