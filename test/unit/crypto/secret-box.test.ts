import { createCipheriv, randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { config } from '../../../shared/config.ts'
import { open, seal, type SealedFor } from '../../../shared/crypto/secret-box.ts'

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
    expect(a.startsWith('v2.')).toBe(true)
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
    const body = Buffer.from(parts[3] ?? '', 'base64url')
    body[0] = (body[0] ?? 0) ^ 1
    parts[3] = body.toString('base64url')
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
})
