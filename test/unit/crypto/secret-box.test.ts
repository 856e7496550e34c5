import { describe, expect, it } from 'vitest'
import { open, seal } from '../../../shared/crypto/secret-box.ts'

describe('Module: secret-box', () => {
  it('seals with a fresh IV each time and opens what it sealed', async () => {
    const a = await seal('whsec_abc')
    const b = await seal('whsec_abc')
    expect(a).not.toBe(b)
    expect(a).not.toContain('whsec_abc')
    expect(a.startsWith('v1.')).toBe(true)
    expect(await open(a)).toBe('whsec_abc')
  })

  it('refuses a tampered value', async () => {
    const sealed = await seal('secret')
    const parts = sealed.split('.')
    const body = Buffer.from(parts[3] ?? '', 'base64url')
    body[0] = (body[0] ?? 0) ^ 1
    parts[3] = body.toString('base64url')
    await expect(open(parts.join('.'))).rejects.toThrow()
    await expect(open('plain text')).rejects.toThrow(/sealed/)
  })
})
