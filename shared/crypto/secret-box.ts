/**
 * Secrets at rest (webhook signing secrets, record-store passwords) are sealed with AES-256-GCM.
 * The key: LMS_ENCRYPTION_KEY locally (the local stack's key file), or in AWS the SHA-256 of the
 * stack's Secrets Manager secret, fetched once per container. A sealed value reads
 * `v2.<iv>.<tag>.<ciphertext>` (base64url parts) and is bound to what it was sealed for (purpose,
 * tenant, record) as associated data: moved onto another record, it does not open. Values of the
 * unbound format v1 are refused (see docs/decisions/0008-events.md). Pseudonyms of client
 * addresses are keyed apart (see pseudonym below).
 */
import { createCipheriv, createDecipheriv, createHash, createHmac, hkdfSync, randomBytes } from 'node:crypto'
import { config } from '../config.ts'
import { once, secretString } from './secrets-manager.ts'

/** The SHA-256 of a Secrets Manager secret's string: 32 bytes of key material. */
async function fromSecretsManager(secretArn: string): Promise<Buffer> {
  return createHash('sha256')
    .update(await secretString(secretArn))
    .digest()
}

const key = once(async () => {
  if (config.encryptionKey) return config.encryptionKey
  if (!config.encryptionSecretArn) throw new Error('No encryption key is configured')
  return fromSecretsManager(config.encryptionSecretArn)
})

/**
 * The LTI tool's private keys are sealed under a key of their own: in AWS from a secret only the
 * LTI group reads (it never holds the key that opens webhook or record-store secrets), locally
 * derived from the encryption key.
 */
const ltiToolKey = once(async () =>
  config.ltiKeySecretArn
    ? fromSecretsManager(config.ltiKeySecretArn)
    : Buffer.from(hkdfSync('sha256', await key(), Buffer.alloc(0), 'lms/lti-tool-key/v1', 32)),
)

const keyFor = (sealedFor: SealedFor) => (sealedFor.purpose === 'lti-tool-key' ? ltiToolKey() : key())

/** What a sealed value belongs to: it opens only for the very same purpose, tenant and record. */
export interface SealedFor {
  readonly purpose: 'webhook-signing-secret' | 'record-store-secret' | 'lti-tool-key'
  readonly tenantId: string
  readonly recordId: string
}

/** Why a sealed value cannot be opened; the message never holds the value or the secret. */
export class SealedValueError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options)
    this.name = 'SealedValueError'
  }
}

const FORMAT = 'v2'

/** A JSON array keeps the parts apart (no tenant and record pair reads like another). */
function associatedData(sealedFor: SealedFor): Buffer {
  return Buffer.from(
    JSON.stringify([`lms/secret-box/${FORMAT}`, sealedFor.purpose, sealedFor.tenantId, sealedFor.recordId]),
    'utf8',
  )
}

export async function seal(plaintext: string, sealedFor: SealedFor): Promise<string> {
  const iv = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', await keyFor(sealedFor), iv)
  cipher.setAAD(associatedData(sealedFor))
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()])
  return [FORMAT, ...[iv, cipher.getAuthTag(), body].map((p) => p.toString('base64url'))].join('.')
}

/** @throws SealedValueError for a value sealed for another record, tampered with, or of format v1 */
export async function open(sealed: string, sealedFor: SealedFor): Promise<string> {
  const [version, iv, tag, body, ...rest] = sealed.split('.')
  if (version === 'v1')
    throw new SealedValueError('Sealed in format v1, which is bound to no record: seal the secret again')
  if (version !== FORMAT || iv === undefined || tag === undefined || body === undefined || rest.length > 0)
    throw new SealedValueError('Not a sealed value')
  const secretKey = await keyFor(sealedFor)
  try {
    const decipher = createDecipheriv('aes-256-gcm', secretKey, Buffer.from(iv, 'base64url'))
    decipher.setAAD(associatedData(sealedFor))
    decipher.setAuthTag(Buffer.from(tag, 'base64url'))
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8')
  } catch (err) {
    throw new SealedValueError(
      'The sealed value does not open for this record (sealed for another, or altered)',
      { cause: err },
    )
  }
}

/**
 * The pseudonyms' own key: in AWS from a secret of their own, which every route group that counts
 * client addresses reads (none of them needs the key that opens sealed secrets); locally derived
 * from the encryption key.
 */
const pseudonymKey = once(async () => {
  const material = config.pseudonymSecretArn
    ? await fromSecretsManager(config.pseudonymSecretArn)
    : await key()
  return Buffer.from(hkdfSync('sha256', material, Buffer.alloc(0), 'lms/pseudonym/v1', 32))
})

/**
 * A stable pseudonym for a value that must be counted but never kept (a client address): an HMAC
 * under a secret key, so a stored pseudonym cannot be reversed by trying every possible value (as
 * a plain hash of an IPv4 address could).
 */
export async function pseudonym(value: string): Promise<string> {
  return createHmac('sha256', await pseudonymKey())
    .update(value)
    .digest('hex')
    .slice(0, 32)
}
