import type { AttributeValue } from '@aws-sdk/client-dynamodb'
import { describe, expect, it } from 'vitest'
import { indexWrites, itemSize, tableWrite } from '../../../bench/modelled-capacity.ts'

type Image = Record<string, AttributeValue>
const s = (v: string): AttributeValue => ({ S: v })

/** A user-like item in gsi1 (ALL) and pos1 (KEYS_ONLY), `pad` bytes of other attributes. */
function user(pad: number, overrides: Image = {}): Image {
  return {
    pk: s('T#t'),
    sk: s('USER#u'),
    gsi1pk: s('T#t#USERS'),
    gsi1sk: s('2026-01-01#u'),
    p1: s('000000001#u'),
    bio: s('x'.repeat(pad)),
    ...overrides,
  }
}

describe('Function: itemSize', () => {
  it('counts attribute names and values as DynamoDB sizes them', () => {
    // Act and assess: "ab" + "xyz" = 5; "n" + 3 digits → 1 + 3 = 4; "m" + map(3 + 1 + "k" + true 1) = 1 + 6 = 7
    expect(itemSize({ ab: s('xyz') })).toBe(5)
    expect(itemSize({ n: { N: '123' } })).toBe(4)
    expect(itemSize({ m: { M: { k: { BOOL: true } } } })).toBe(7)
  })
})

describe('Function: tableWrite', () => {
  it('bills 1 WCU per started KB of the larger image, twice in a transaction', () => {
    // Act and assess
    expect(tableWrite(undefined, user(100), false)).toBe(1)
    expect(tableWrite(undefined, user(100), true)).toBe(2)
    expect(tableWrite(user(100), user(1500), true)).toBe(4)
  })
})

describe('Function: indexWrites', () => {
  it('writes an entry into every index whose keys a new item carries, by the entry size', () => {
    // Act
    const writes = indexWrites(undefined, user(1500))

    // Assess: gsi1 (ALL) holds the 1.5 KB; pos1 (KEYS_ONLY) only keys
    expect(writes).toEqual({ gsi1: 2, pos1: 1 })
  })

  it('rewrites an ALL entry when any attribute changes, and leaves a keys-only entry alone', () => {
    // Act and assess
    expect(indexWrites(user(100), user(100, { bio: s('changed') }))).toEqual({ gsi1: 1 })
  })

  it('prices a moved index key as a delete and a put', () => {
    // Act and assess
    expect(indexWrites(user(100), user(100, { gsi1sk: s('2026-02-02#u') }))).toEqual({ gsi1: 2 })
  })

  it('deletes the entries of a deleted item and writes nothing when nothing changed', () => {
    // Act and assess
    expect(indexWrites(user(100), undefined)).toEqual({ gsi1: 1, pos1: 1 })
    expect(indexWrites(user(100), user(100))).toEqual({})
  })
})
