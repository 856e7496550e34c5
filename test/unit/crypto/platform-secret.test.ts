/**
 * The billing orchestrator's platform secret through a rotation: both values are accepted during
 * the window, only the new one after it; a container that read the secret before the rotation
 * accepts the new value at once. The clock is the test's own.
 */
import { describe, expect, it } from 'vitest'
import { platformSecretChecker } from '../../../shared/crypto/platform-secret.ts'
import {
  parsePlatformSecret,
  platformSecretText,
  rotatePlatformSecret,
} from '../../../shared/crypto/platform-secret-value.ts'
import { refreshing } from '../../../shared/crypto/secrets-manager.ts'

const OLD = 'old-platform-secret-0123456789'
const NEW = 'new-platform-secret-9876543210'

/** The secret's text as Secrets Manager or the stack's file holds it, and a container reading it. */
function billingSecret(text: string) {
  let stored = text
  let clock = Date.parse('2030-01-01T00:00:00Z')
  const cache = refreshing(async () => parsePlatformSecret(stored), {
    maxAgeMs: 5 * 60_000,
    now: () => clock,
  })
  return {
    isPlatformSecret: platformSecretChecker(cache, () => new Date(clock)),
    write: (t: string) => (stored = t),
    read: () => stored,
    at: () => new Date(clock),
    advance: (ms: number) => (clock += ms),
  }
}

describe('Platform secret: two values during a rotation', () => {
  it('accepts the plain secret written before rotations as key k0', async () => {
    const billing = billingSecret(OLD)
    expect(parsePlatformSecret(OLD)).toEqual({ id: 'k0', current: OLD })
    expect(await billing.isPlatformSecret(OLD)).toBe(true)
    expect(await billing.isPlatformSecret(`${OLD}x`)).toBe(false)
    expect(await billing.isPlatformSecret('')).toBe(false)
    expect(await billing.isPlatformSecret(undefined)).toBe(false)
  })

  it('accepts the current and the previous value until the window closes, then only the current', async () => {
    // Prepare: a container has read (and cached) the secret before the rotation.
    const billing = billingSecret(OLD)
    expect(await billing.isPlatformSecret(OLD)).toBe(true)

    // Act: rotated with a window of one day.
    const until = new Date(billing.at().getTime() + 24 * 3_600_000).toISOString()
    const rotated = rotatePlatformSecret(parsePlatformSecret(billing.read()), NEW, until)
    billing.write(platformSecretText(rotated))

    // Assess
    expect(rotated.id).toBe('k1')
    expect(await billing.isPlatformSecret(NEW)).toBe(true)
    expect(await billing.isPlatformSecret(OLD)).toBe(true)
    billing.advance(24 * 3_600_000 - 1)
    expect(await billing.isPlatformSecret(OLD)).toBe(true)
    billing.advance(1)
    expect(await billing.isPlatformSecret(OLD)).toBe(false)
    expect(await billing.isPlatformSecret(NEW)).toBe(true)
  })

  it('keeps only one previous value: a second rotation retires the first secret at once', () => {
    const until = '2030-01-02T00:00:00.000Z'
    const once = rotatePlatformSecret(parsePlatformSecret(OLD), NEW, until)
    const twice = rotatePlatformSecret(once, 'third-platform-secret-000000', until)
    expect(twice).toEqual({
      id: 'k2',
      current: 'third-platform-secret-000000',
      previous: { value: NEW, until },
    })
    expect(parsePlatformSecret(platformSecretText(twice))).toEqual(twice)
  })

  it('refuses a malformed rotated secret without quoting it', () => {
    const text = JSON.stringify({ format: 'lms-platform-secret/1', id: 'k1', current: 'short' })
    expect(() => parsePlatformSecret(text)).toThrow(/platform secret is malformed/)
    expect(() => parsePlatformSecret(text)).not.toThrow(/short/)
  })
})
