/**
 * Where the product's key rings come from, read at first use and again every few minutes
 * (LMS_SECRET_REFRESH_MINUTES), so a rotation reaches warm containers without a deploy:
 *
 * - the encryption ring: locally the stack's ring file (LMS_ENCRYPTION_KEY_RING_FILE), or one key
 *   (LMS_ENCRYPTION_KEY); in AWS its Secrets Manager secret (LMS_ENCRYPTION_SECRET_ARN);
 * - the LTI tool's ring: in AWS a secret of its own, which only the LTI group reads; locally derived
 *   key by key from the encryption ring (same ids).
 *
 * A ring in a file holds base64 keys of 32 bytes; a ring in Secrets Manager holds strings whose
 * SHA-256 is the key (as the stack's generated secret always was).
 */
import { createHash, hkdfSync } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { config } from '../config.ts'
import { keyRing, ORIGINAL_KEY_ID, parseRing, type KeyRing } from './key-ring.ts'
import { refreshing, secretString, type Refreshing } from './secrets-manager.ts'

export const sha256Key = (secret: string): Buffer => createHash('sha256').update(secret).digest()

export function base64Key(secret: string): Buffer {
  const key = Buffer.from(secret, 'base64')
  if (key.length !== 32) throw new Error('A key of the ring file is not 32 bytes, base64-encoded')
  return key
}

async function loadEncryptionRing(): Promise<KeyRing> {
  if (config.encryptionKeyRingFile)
    return keyRing(parseRing(await readFile(config.encryptionKeyRingFile, 'utf8')), base64Key)
  if (config.encryptionKey)
    return { newestId: ORIGINAL_KEY_ID, keys: new Map([[ORIGINAL_KEY_ID, config.encryptionKey]]) }
  if (!config.encryptionSecretArn) throw new Error('No encryption key is configured')
  return keyRing(parseRing(await secretString(config.encryptionSecretArn)), sha256Key)
}

/** A key of its own for each purpose, from one key: HKDF with the purpose as its info. */
export const derivedKey = (key: Buffer, info: string): Buffer =>
  Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), info, 32))

const refreshEvery = { maxAgeMs: config.secretRefreshMs }

export const encryptionRing: Refreshing<KeyRing> = refreshing(loadEncryptionRing, refreshEvery)

export const ltiToolKeyRing: Refreshing<KeyRing> = config.ltiKeySecretArn
  ? refreshing(
      async () => keyRing(parseRing(await secretString(config.ltiKeySecretArn ?? '')), sha256Key),
      refreshEvery,
    )
  : derivedRing(encryptionRing, 'lms/lti-tool-key/v1')

/** A ring whose every key is derived from the key of the same id in `from`. */
function derivedRing(from: Refreshing<KeyRing>, info: string): Refreshing<KeyRing> {
  const derive = (ring: KeyRing): KeyRing => ({
    newestId: ring.newestId,
    keys: new Map([...ring.keys].map(([id, key]) => [id, derivedKey(key, info)])),
  })
  const get = (async () => derive(await from())) as Refreshing<KeyRing>
  get.reload = async () => derive(await from.reload())
  return get
}
