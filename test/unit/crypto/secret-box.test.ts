import { createCipheriv, randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { config } from '../../../shared/config.ts'
import { keyRing, parseRing, withKey, type RingEntry } from '../../../shared/crypto/key-ring.ts'
import { base64Key } from '../../../shared/crypto/key-rings.ts'
import { open, seal, sealedKeyId, secretBox, type SealedFor } from '../../../shared/crypto/secret-box.ts'
import { refreshing } from '../../../shared/crypto/secrets-manager.ts'

const record: SealedFor = {
  purpose: 'webhook-signing-secret',
  tenantId: '11111111-1111-4111-8111-111111111111',
  recordId: '22222222-2222-4222-8222-222222222222',
}

describe('Module: secret-box', () => {
  it('seals with a fresh IV each time and opens what it sealed for the same record', async () => {
    const a = await seal('whsec_abc', record)
    const b = await seal('whsec_abc', record)
    expect(a).not.toBe(b)
    expect(a).not.toContain('whsec_abc')
    expect(a.startsWith('v3.k0.')).toBe(true)
    expect(await open(a, record)).toBe('whsec_abc')
    expect(await open(a, { ...record })).toBe('whsec_abc')
  })

  it('does not open a value moved to another tenant, another record or another purpose (ciphertext moved between records)', async () => {
    const sealed = await seal('whsec_abc', record)
    const elsewhere: SealedFor[] = [
      { ...record, tenantId: '33333333-3333-4333-8333-333333333333' },
      { ...record, recordId: '44444444-4444-4444-8444-444444444444' },
      { ...record, purpose: 'record-store-secret' },
    ]
    for (const other of elsewhere) {
      await expect(open(sealed, other)).rejects.toThrow(/does not open for this record/)
    }
    // Parts that would read the same run together are kept apart.
    const joined = await seal('whsec_abc', { ...record, tenantId: 'a.b', recordId: 'c' })
    await expect(open(joined, { ...record, tenantId: 'a', recordId: 'b.c' })).rejects.toThrow(
      /does not open for this record/,
    )
  })

  it('refuses a tampered value and a value that is not sealed', async () => {
    const sealed = await seal('secret', record)
    const parts = sealed.split('.')
    const body = Buffer.from(parts[4] ?? '', 'base64url')
    body[0] = (body[0] ?? 0) ^ 1
    parts[4] = body.toString('base64url')
    await expect(open(parts.join('.'), record)).rejects.toThrow()
    await expect(open('plain text', record)).rejects.toThrow(/sealed/)
    await expect(open('', record)).rejects.toThrow(/sealed/)
  })

  it('refuses a value sealed in the old format v1, which is bound to no record', async () => {
    const key = config.encryptionKey ?? Buffer.alloc(0)
    const iv = randomBytes(12)
    const cipher = createCipheriv('aes-256-gcm', key, iv)
    const body = Buffer.concat([cipher.update('whsec_abc', 'utf8'), cipher.final()])
    const v1 = ['v1', ...[iv, cipher.getAuthTag(), body].map((p) => p.toString('base64url'))].join('.')
    await expect(open(v1, record)).rejects.toThrow(/format v1/)
  })

  it('opens a value sealed before key ids (format v2) with the original key k0', async () => {
    // Prepare: sealed exactly as the product did before this change.
    const key = config.encryptionKey ?? Buffer.alloc(0)
    const iv = randomBytes(12)
    const cipher = createCipheriv('aes-256-gcm', key, iv)
    cipher.setAAD(
      Buffer.from(JSON.stringify(['lms/secret-box/v2', record.purpose, record.tenantId, record.recordId])),
    )
    const body = Buffer.concat([cipher.update('whsec_from_before', 'utf8'), cipher.final()])
    const v2 = ['v2', ...[iv, cipher.getAuthTag(), body].map((p) => p.toString('base64url'))].join('.')

    // Act and assess
    expect(sealedKeyId(v2)).toBe('k0')
    expect(await open(v2, record)).toBe('whsec_from_before')
    await expect(open(v2, { ...record, recordId: 'another' })).rejects.toThrow(/does not open/)
  })
})

/**
 * A ring kept in memory as a file or a secret keeps it; `rotate` is what `lms secret rotate` does,
 * and each `process()` is a container with its own cache of the ring (refreshed every 5 minutes of
 * the test's clock).
 */
function ringSource() {
  let entries: RingEntry[] = parseRing(randomBytes(32).toString('base64'))
  let clock = 0
  const process = () => {
    const cache = refreshing(async () => keyRing(entries, base64Key), {
      maxAgeMs: 5 * 60_000,
      minReloadMs: 0,
      now: () => clock,
    })
    return secretBox(() => cache)
  }
  return {
    box: process(),
    process,
    rotate: () => {
      const next = withKey(entries, randomBytes(32).toString('base64'))
      entries = next.entries
      return next.id
    },
    advance: (ms: number) => (clock += ms),
  }
}

describe('Module: secret-box, with a key ring that rotates', () => {
  it('seals with the newest key once the ring is read again, and still opens what older keys sealed', async () => {
    // Prepare
    const { box, rotate, advance } = ringSource()
    const before = await box.seal('whsec_before', record)

    // Act
    expect(rotate()).toBe('k1')
    const cached = await box.seal('whsec_cached', record)
    advance(5 * 60_000)
    const after = await box.seal('whsec_after', record)

    // Assess
    expect([before, cached, after].map(sealedKeyId)).toEqual(['k0', 'k0', 'k1'])
    expect(await box.open(before, record)).toBe('whsec_before')
    expect(await box.open(cached, record)).toBe('whsec_cached')
    expect(await box.open(after, record)).toBe('whsec_after')
  })

  it('reads the ring again when a value names a key its cache does not hold (another process rotated)', async () => {
    // Prepare: the worker has read the ring before the rotation.
    const { process, rotate } = ringSource()
    const operator = process()
    const worker = process()
    expect(await worker.open(await worker.seal('x', record), record)).toBe('x')

    // Act
    rotate()
    const sealedByOperator = await process().seal('whsec_new', record)

    // Assess
    expect(sealedKeyId(sealedByOperator)).toBe('k1')
    expect(await worker.open(sealedByOperator, record)).toBe('whsec_new')
    const unknown = sealedByOperator.replace('v3.k1.', 'v3.k7.')
    await expect(operator.open(unknown, record)).rejects.toThrow(/key k7, which the key ring does not hold/)
  })

  it('re-seals an old value under the newest key once; the second time there is nothing to do', async () => {
    // Prepare
    const { box, rotate } = ringSource()
    const old = await box.seal('whsec_abc', record)
    rotate()

    // Act
    const moved = await box.reseal(old, record)
    const again = moved === null ? null : await box.reseal(moved, record)

    // Assess
    expect(moved).not.toBeNull()
    expect(sealedKeyId(moved ?? '')).toBe('k1')
    expect(await box.open(moved ?? '', record)).toBe('whsec_abc')
    expect(again).toBeNull()
  })

  it('does not open a value whose key id was changed, even to a key of the ring', async () => {
    const { box, rotate } = ringSource()
    rotate()
    const sealed = await box.seal('whsec_abc', record)
    await expect(box.open(sealed.replace('v3.k1.', 'v3.k0.'), record)).rejects.toThrow(/does not open/)
  })
})
