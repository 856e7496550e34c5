/**
 * Secrets at rest (webhook signing secrets, record-store passwords) are sealed with AES-256-GCM.
 * The key: LMS_ENCRYPTION_KEY locally (the local stack's key file), or in AWS the SHA-256 of the
 * stack's Secrets Manager secret, fetched once per container. A sealed value reads
 * `v1.<iv>.<tag>.<ciphertext>` (base64url parts).
 */
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager'
import { createCipheriv, createDecipheriv, createHash, createHmac, hkdfSync, randomBytes } from 'node:crypto'
import { config } from '../config.ts'

let cached: Promise<Buffer> | undefined

async function fetchKey(): Promise<Buffer> {
  if (config.encryptionKey) return config.encryptionKey
  if (!config.encryptionSecretArn) throw new Error('No encryption key is configured')
  const client = new SecretsManagerClient({ region: config.region })
  const out = await client.send(new GetSecretValueCommand({ SecretId: config.encryptionSecretArn }))
  if (!out.SecretString) throw new Error('The encryption secret is empty')
  return createHash('sha256').update(out.SecretString).digest()
}

function key(): Promise<Buffer> {
  cached ??= fetchKey().catch((err: unknown) => {
    cached = undefined
    throw err
  })
  return cached
}

export async function seal(plaintext: string): Promise<string> {
  const iv = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', await key(), iv)
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()])
  return ['v1', ...[iv, cipher.getAuthTag(), body].map((p) => p.toString('base64url'))].join('.')
}

export async function open(sealed: string): Promise<string> {
  const [version, iv, tag, body] = sealed.split('.')
  if (version !== 'v1' || iv === undefined || tag === undefined || body === undefined)
    throw new Error('Not a sealed value')
  const decipher = createDecipheriv('aes-256-gcm', await key(), Buffer.from(iv, 'base64url'))
  decipher.setAuthTag(Buffer.from(tag, 'base64url'))
  return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8')
}

let pseudonymKey: Promise<Buffer> | undefined

/**
 * A stable pseudonym for a value that must be counted but never kept (a client address): an HMAC
 * under a key derived from the secret key, so a stored pseudonym cannot be reversed by trying
 * every possible value (as a plain hash of an IPv4 address could).
 */
export async function pseudonym(value: string): Promise<string> {
  pseudonymKey ??= key().then((k) =>
    Buffer.from(hkdfSync('sha256', k, Buffer.alloc(0), 'lms/pseudonym/v1', 32)),
  )
  return createHmac('sha256', await pseudonymKey)
    .update(value)
    .digest('hex')
    .slice(0, 32)
}
