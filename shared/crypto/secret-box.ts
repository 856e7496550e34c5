/**
 * Secrets at rest (webhook signing secrets, record-store passwords, the LTI tool's private keys)
 * are sealed with AES-256-GCM under the newest key of a key ring (shared/crypto/key-rings.ts). A
 * sealed value reads `v3.<key id>.<iv>.<tag>.<ciphertext>` (base64url parts; key ids in
 * docs/decisions/0030-key-ids.md) and is bound to its key id and to what it was sealed for
 * (purpose, tenant, record) as associated data: moved onto another record, it does not open.
 * Values of format v2 (`v2.<iv>.<tag>.<ciphertext>`, written before key ids) open with the
 * ring's original key `k0`; values of the unbound format v1 are refused (docs/decisions/0008).
 * Pseudonyms of client addresses are keyed apart (see pseudonym below).
 */
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto'
import { config } from '../config.ts'
import { ORIGINAL_KEY_ID, type KeyRing } from './key-ring.ts'
import { derivedKey, encryptionRing, ltiToolKeyRing, sha256Key } from './key-rings.ts'
import { refreshing, secretString, type Refreshing } from './secrets-manager.ts'

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

const FORMAT = 'v3'

/** A JSON array keeps the parts apart (no tenant and record pair reads like another). */
function associatedData(format: 'v2' | 'v3', keyId: string, sealedFor: SealedFor): Buffer {
  const head = format === 'v2' ? ['lms/secret-box/v2'] : ['lms/secret-box/v3', keyId]
  return Buffer.from(
    JSON.stringify([...head, sealedFor.purpose, sealedFor.tenantId, sealedFor.recordId]),
    'utf8',
  )
}

interface Parsed {
  readonly format: 'v2' | 'v3'
  readonly keyId: string
  readonly iv: string
  readonly tag: string
  readonly body: string
}

function parse(sealed: string): Parsed {
  const parts = sealed.split('.')
  const [format] = parts
  if (format === 'v1')
    throw new SealedValueError('Sealed in format v1, which is bound to no record: seal the secret again')
  if (format === 'v2' && parts.length === 4) {
    const [, iv = '', tag = '', body = ''] = parts
    return { format, keyId: ORIGINAL_KEY_ID, iv, tag, body }
  }
  if (format === FORMAT && parts.length === 5) {
    const [, keyId = '', iv = '', tag = '', body = ''] = parts
    return { format, keyId, iv, tag, body }
  }
  throw new SealedValueError('Not a sealed value')
}

/** The id of the key a value is sealed under (`k0` for a value of format v2). */
export function sealedKeyId(sealed: string): string {
  return parse(sealed).keyId
}

/** Seals and opens under the rings given (the product's below; tests build their own). */
export function secretBox(ringFor: (sealedFor: SealedFor) => Refreshing<KeyRing>) {
  async function seal(plaintext: string, sealedFor: SealedFor): Promise<string> {
    const ring = await ringFor(sealedFor)()
    const key = ring.keys.get(ring.newestId)
    if (!key) throw new SealedValueError('The key ring holds no key under its newest id')
    const iv = randomBytes(12)
    const cipher = createCipheriv('aes-256-gcm', key, iv)
    cipher.setAAD(associatedData(FORMAT, ring.newestId, sealedFor))
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()])
    return [
      FORMAT,
      ring.newestId,
      ...[iv, cipher.getAuthTag(), body].map((p) => p.toString('base64url')),
    ].join('.')
  }

  /**
   * A key id the cached ring lacks makes it read the ring again (once in a while, see
   * `refreshing`): another process may have rotated and sealed with the new key already.
   *
   * @throws SealedValueError for a value sealed for another record, tampered with, under a key the
   *   ring does not hold, or of format v1
   */
  async function open(sealed: string, sealedFor: SealedFor): Promise<string> {
    const p = parse(sealed)
    const ring = ringFor(sealedFor)
    const key = (await ring()).keys.get(p.keyId) ?? (await ring.reload()).keys.get(p.keyId)
    if (!key) throw new SealedValueError(`Sealed under key ${p.keyId}, which the key ring does not hold`)
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(p.iv, 'base64url'))
      decipher.setAAD(associatedData(p.format, p.keyId, sealedFor))
      decipher.setAuthTag(Buffer.from(p.tag, 'base64url'))
      return Buffer.concat([decipher.update(Buffer.from(p.body, 'base64url')), decipher.final()]).toString(
        'utf8',
      )
    } catch (err) {
      throw new SealedValueError(
        'The sealed value does not open for this record (sealed for another, or altered)',
        { cause: err },
      )
    }
  }

  /**
   * The value sealed again under the ring's newest key, or null when it already is (so re-sealing
   * twice writes nothing the second time).
   */
  async function reseal(sealed: string, sealedFor: SealedFor): Promise<string | null> {
    const ring = ringFor(sealedFor)
    const newest = (await ring.reload()).newestId
    const p = parse(sealed)
    if (p.format === FORMAT && p.keyId === newest) return null
    return seal(await open(sealed, sealedFor), sealedFor)
  }

  return { seal, open, reseal }
}

const productBox = secretBox((sealedFor) =>
  sealedFor.purpose === 'lti-tool-key' ? ltiToolKeyRing : encryptionRing,
)

export const seal = productBox.seal
export const open = productBox.open
export const reseal = productBox.reseal

/**
 * The pseudonyms' own key: in AWS from a secret of their own, which every route group that counts
 * client addresses reads (none of them needs the key that opens sealed secrets); locally derived
 * from the encryption ring's original key, so a rotation leaves pseudonyms as they were.
 */
const pseudonymKey = refreshing(
  async () => {
    const material = config.pseudonymSecretArn
      ? sha256Key(await secretString(config.pseudonymSecretArn))
      : (await encryptionRing()).keys.get(ORIGINAL_KEY_ID)
    if (!material) throw new Error('The encryption key ring holds no original key k0')
    return derivedKey(material, 'lms/pseudonym/v1')
  },
  { maxAgeMs: config.secretRefreshMs },
)

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
