/**
 * Secrets at rest (webhook signing secrets, record-store passwords) are sealed with AES-256-GCM.
 * The key comes from config: in AWS from the stack's secret, locally from the key file the local
 * stack creates. A sealed value reads `v1.<iv>.<tag>.<ciphertext>` (base64url parts).
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'
import { config } from '../config.ts'

function keyOrThrow(): Buffer {
  if (!config.encryptionKey) throw new Error('No encryption key is configured (LMS_ENCRYPTION_KEY)')
  return config.encryptionKey
}

export function seal(plaintext: string, key: Buffer = keyOrThrow()): string {
  const iv = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', key, iv)
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()])
  return ['v1', iv, cipher.getAuthTag(), body]
    .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
    .join('.')
}

export function open(sealed: string, key: Buffer = keyOrThrow()): string {
  const [version, iv, tag, body] = sealed.split('.')
  if (version !== 'v1' || iv === undefined || tag === undefined || body === undefined)
    throw new Error('Not a sealed value')
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'))
  decipher.setAuthTag(Buffer.from(tag, 'base64url'))
  return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8')
}
