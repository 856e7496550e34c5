import * as v from 'valibot'
import { describe, expect, it } from 'vitest'
import { decodeEach, decodeItem, nullable, withDefault } from '../../../shared/store/core/decode.ts'
import { MalformedItem } from '../../../shared/store/core/store-errors.ts'

const Thing = v.object({ id: v.string(), note: nullable(v.string()), count: withDefault(v.number(), 0) })

describe('Function: decodeItem', () => {
  it('reads absent optional attributes as null and defaults', () => {
    expect(decodeItem('thing', Thing, { pk: 'T#1', sk: 'THING#1', id: '1' })).toEqual({
      id: '1',
      note: null,
      count: 0,
    })
  })

  it('fails loudly naming the entity, its key and the attribute, never the value', () => {
    // Act
    const err = (() => {
      try {
        decodeItem('thing', Thing, { pk: 'T#1', sk: 'THING#1', id: 42, secret: 'hunter2' })
      } catch (e) {
        return e
      }
    })()

    // Assess
    expect(err).toBeInstanceOf(MalformedItem)
    expect((err as MalformedItem).name).toBe('MalformedItem')
    expect((err as Error).message).toMatch(/^Malformed thing item \(T#1 \/ THING#1\): id: /)
    expect((err as Error).message).not.toContain('42')
  })
})

describe('Function: decodeEach', () => {
  it('hands back the items that do not read as their MalformedItem, keeping the others in order', () => {
    const schema = v.object({ n: v.number() })
    const items = [
      { pk: 'a', sk: '1', n: 1 },
      { pk: 'b', sk: '2', n: 'x' },
      { pk: 'c', sk: '3', n: 3 },
    ]
    const { readable, unreadable } = decodeEach(items, (item) => decodeItem('thing', schema, item).n)
    expect(readable).toEqual([1, 3])
    expect(unreadable).toHaveLength(1)
    expect(unreadable[0]).toBeInstanceOf(MalformedItem)
  })

  it('lets any other error through', () => {
    expect(() =>
      decodeEach([{ pk: 'a', sk: '1' }], () => {
        throw new Error('boom')
      }),
    ).toThrow('boom')
  })
})
