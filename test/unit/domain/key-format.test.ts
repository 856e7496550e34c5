import { describe, expect, it } from 'vitest'
import {
  generateKey,
  hashKey,
  isWellFormedKey,
  VISIBLE_PREFIX_LENGTH,
} from '../../../shared/domain/api-keys/key-format.ts'

describe('Module: key-format', () => {
  it('generates keys with the service prefix, environment segment and a valid checksum', () => {
    const live = generateKey('live')
    const test = generateKey('test')
    expect(live.key).toMatch(/^lms_live_[0-9A-Za-z]{38}$/)
    expect(test.key).toMatch(/^lms_test_[0-9A-Za-z]{38}$/)
    expect(live.prefix).toBe(live.key.slice(0, VISIBLE_PREFIX_LENGTH))
    expect(live.prefix).toHaveLength(12)
    expect(live.hash).toBe(hashKey(live.key))
    expect(live.hash).not.toContain(live.key)
    expect(isWellFormedKey(live.key)).toBe(true)
    expect(isWellFormedKey(test.key)).toBe(true)
  })

  it('refuses any single-character typo, a wrong segment and a foreign format', () => {
    const { key } = generateKey('live')
    for (let i = 9; i < key.length; i++) {
      const swapped = key.slice(0, i) + (key[i] === 'A' ? 'B' : 'A') + key.slice(i + 1)
      expect(isWellFormedKey(swapped)).toBe(false)
    }
    expect(isWellFormedKey(key.replace('_live_', '_prod_'))).toBe(false)
    expect(isWellFormedKey(`ghp_${key.slice(9)}`)).toBe(false)
    expect(isWellFormedKey('')).toBe(false)
  })

  it('never repeats a key', () => {
    const keys = new Set(Array.from({ length: 1000 }, () => generateKey('live').key))
    expect(keys.size).toBe(1000)
  })
})
