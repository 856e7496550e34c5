import { describe, expect, it } from 'vitest'
import { keyRing, parseRing, ringText, withKey } from '../../../shared/crypto/key-ring.ts'
import { sha256Key } from '../../../shared/crypto/key-rings.ts'

describe('Module: key-ring', () => {
  it('reads a secret written before rings as a ring of one key, the original k0', () => {
    expect(parseRing('  a-generated-secret\n')).toEqual([{ id: 'k0', secret: 'a-generated-secret' }])
  })

  it('adds keys under the next number, newest last, and reads back what it wrote', () => {
    // Act
    const one = withKey(parseRing('first'), 'second')
    const two = withKey(one.entries, 'third')

    // Assess
    expect([one.id, two.id]).toEqual(['k1', 'k2'])
    expect(parseRing(ringText(two.entries))).toEqual(two.entries)
    const ring = keyRing(two.entries, sha256Key)
    expect(ring.newestId).toBe('k2')
    expect([...ring.keys.keys()]).toEqual(['k0', 'k1', 'k2'])
    expect(ring.keys.get('k0')).toEqual(sha256Key('first'))
  })

  it('refuses a ring that is malformed, empty or names a key twice, without quoting a secret', () => {
    const bad = [
      '{not json',
      JSON.stringify({ format: 'lms-key-ring/1', keys: [] }),
      JSON.stringify({ format: 'lms-key-ring/1', keys: [{ id: 'key-one', secret: 's3cr3t' }] }),
      JSON.stringify({
        format: 'lms-key-ring/1',
        keys: [
          { id: 'k0', secret: 's3cr3t' },
          { id: 'k0', secret: 's3cr3t-2' },
        ],
      }),
    ]
    for (const text of bad) {
      expect(() => parseRing(text)).toThrow(/key ring/)
      expect(() => parseRing(text)).not.toThrow(/s3cr3t/)
    }
  })
})
