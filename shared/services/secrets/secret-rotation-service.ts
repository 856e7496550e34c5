/**
 * `lms secret rotate`: adds a key to a key ring (nothing sealed before is orphaned: the ring keeps
 * every key), or gives the billing platform secret a new value while the old one stays accepted
 * for a window. Where each secret lives comes from config: Secrets Manager in AWS, the stack's
 * files locally (docs/operations.md, "Rotating secrets").
 */
import { randomBytes } from 'node:crypto'
import { config } from '../../config.ts'
import { parseRing, ringText, withKey } from '../../crypto/key-ring.ts'
import {
  parsePlatformSecret,
  platformSecretText,
  rotatePlatformSecret,
} from '../../crypto/platform-secret-value.ts'
import { secretFile, secretsManagerSecret, type SecretText } from '../../crypto/secret-text.ts'
import { RuleViolationError } from '../../domain/errors.ts'

export const secretNames = ['encryption', 'lti-key', 'billing'] as const
export type SecretName = (typeof secretNames)[number]

export interface Rotated {
  readonly name: SecretName
  /** The id of the key (or billing value) now current; never the secret. */
  readonly keyId: string
  readonly rotatedAt: string
  /** Billing: until when the replaced value is still accepted. */
  readonly previousUntil?: string
}

const notRotatable = (message: string) => new RuleViolationError('secret.not_rotatable', message)

/** A ring in a file holds base64 keys; a ring in Secrets Manager, strings hashed into keys. */
function ringOf(name: 'encryption' | 'lti-key'): { store: SecretText; newSecret: () => string } {
  if (name === 'lti-key') {
    if (!config.ltiKeySecretArn)
      throw notRotatable('Locally the LTI tool key derives from the encryption ring: rotate encryption')
    return { store: secretsManagerSecret(config.ltiKeySecretArn), newSecret: generated }
  }
  if (config.encryptionKeyRingFile)
    return {
      store: secretFile(config.encryptionKeyRingFile),
      newSecret: () => randomBytes(32).toString('base64'),
    }
  if (config.encryptionSecretArn)
    return { store: secretsManagerSecret(config.encryptionSecretArn), newSecret: generated }
  throw notRotatable(
    'The encryption key comes from LMS_ENCRYPTION_KEY alone: run against a stack that keeps a ring (npm start)',
  )
}

/** As long and as random as the stack's generated secrets (64 characters). */
const generated = () => randomBytes(48).toString('base64url')

function billingSecret(): SecretText {
  if (config.platformMetricsSecretFile) return secretFile(config.platformMetricsSecretFile)
  if (config.platformMetricsSecretArn) return secretsManagerSecret(config.platformMetricsSecretArn)
  throw notRotatable('No billing platform secret is configured (the billing route is not enabled)')
}

/**
 * @param overlapHours billing only: how long the replaced value stays accepted
 * @example await rotateSecret('encryption', new Date()) // { name: 'encryption', keyId: 'k1', ... }
 */
export async function rotateSecret(name: SecretName, at: Date, overlapHours = 24): Promise<Rotated> {
  const rotatedAt = at.toISOString()
  if (name === 'billing') {
    const store = billingSecret()
    const { text, version } = await store.read()
    const previousUntil = new Date(at.getTime() + overlapHours * 3_600_000).toISOString()
    const next = rotatePlatformSecret(parsePlatformSecret(text), generated(), previousUntil)
    await store.write(platformSecretText(next), version)
    return { name, keyId: next.id, rotatedAt, previousUntil }
  }
  const { store, newSecret } = ringOf(name)
  const { text, version } = await store.read()
  const next = withKey(parseRing(text), newSecret())
  await store.write(ringText(next.entries), version)
  return { name, keyId: next.id, rotatedAt }
}

/**
 * Ends the billing secret's window now (the orchestrator has switched): only the current value is
 * accepted from the next read of the secret on (within LMS_SECRET_REFRESH_MINUTES).
 */
export async function retirePreviousBillingSecret(at: Date): Promise<{ keyId: string; retiredAt: string }> {
  const store = billingSecret()
  const { text, version } = await store.read()
  const { id, current } = parsePlatformSecret(text)
  await store.write(platformSecretText({ id, current }), version)
  return { keyId: id, retiredAt: at.toISOString() }
}
