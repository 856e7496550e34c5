/**
 * An entity declared once: the item it writes, the value it reads back (older items' missing
 * attributes included), and the update between two values.
 */
import * as v from 'valibot'
import { describe, expect, it } from 'vitest'
import { withDefault } from '../../../shared/store/core/decode.ts'
import {
  decoderOf,
  defineEntity,
  field,
  listField,
  mapField,
  optionalField,
  optionalMapField,
  readOnlyField,
  recordField,
  sparseField,
  sparseListField,
} from '../../../shared/store/core/entity.ts'
import { MalformedItem } from '../../../shared/store/core/store-errors.ts'

const badge = defineEntity(
  'badge',
  {
    id: field('id', v.string()),
    label: optionalField('label', v.string()),
    tags: sparseField('tags', v.array(v.string()), []),
    points: field('points', withDefault(v.number(), 0)),
    style: mapField('style', { color: field('color', withDefault(v.string(), 'blue')) }),
    issuer: optionalMapField('issuer', { orgId: field('org_id', v.string()) }),
  },
  {
    key: (tenant: string, b) => ({ pk: `T#${tenant}`, sk: `BADGE#${b.id}` }),
    derived: (tenant, b) => ({ gsi1pk: `T#${tenant}#BADGES`, gsi1sk: b.id }),
  },
)

const full = {
  id: 'b1',
  label: 'Gold',
  tags: ['a'],
  points: 5,
  style: { color: 'red' },
  issuer: { orgId: 'o1' },
}

describe('defineEntity', () => {
  it('writes the key, the type, each field under its attribute and the derived attributes', () => {
    expect(badge.item('t1', full)).toEqual({
      pk: 'T#t1',
      sk: 'BADGE#b1',
      type: 'badge',
      id: 'b1',
      label: 'Gold',
      tags: ['a'],
      points: 5,
      style: { color: 'red' },
      issuer: { org_id: 'o1' },
      gsi1pk: 'T#t1#BADGES',
      gsi1sk: 'b1',
    })
  })

  it('leaves out null and empty values, and reads them back as they were', () => {
    const bare = { ...full, label: null, tags: [], points: 0, issuer: null }
    const item = badge.item('t1', bare)

    expect(Object.keys(item)).not.toContain('label')
    expect(Object.keys(item)).not.toContain('tags')
    expect(Object.keys(item)).not.toContain('issuer')
    expect(item.points).toBe(0)
    expect(badge.decode(item)).toEqual(bare)
  })

  it('reads an older item without the newer attributes with their defaults', () => {
    expect(badge.decode({ pk: 'T#t1', sk: 'BADGE#b1', id: 'b1', label: null })).toEqual({
      id: 'b1',
      label: null,
      tags: [],
      points: 0,
      style: { color: 'blue' },
      issuer: null,
    })
  })

  it('encodes only the fields asked for', () => {
    expect(badge.encode(full, ['label', 'issuer'])).toEqual({ label: 'Gold', issuer: { org_id: 'o1' } })
  })

  it('sets what changed and removes what the new value leaves empty', () => {
    const after = { ...full, label: null, tags: ['a', 'b'], style: { color: 'red' } }

    expect(badge.changeOf(full, after)).toEqual({ set: { tags: ['a', 'b'] }, remove: ['label'] })
    expect(badge.changeOf(full, after, ['id', 'style'])).toEqual({ set: {}, remove: [] })
  })

  it('writes a list of maps under their attributes, and reads an older item without it as empty', () => {
    const rungs = defineEntity(
      'ladder',
      { id: field('id', v.string()), rungs: listField('rungs', { stepId: field('step_id', v.string()) }) },
      { key: (_: null, l) => ({ pk: 'L', sk: l.id }) },
    )
    const ladder = { id: 'l1', rungs: [{ stepId: 's1' }, { stepId: 's2' }] }

    expect(rungs.encode(ladder)).toEqual({ id: 'l1', rungs: [{ step_id: 's1' }, { step_id: 's2' }] })
    expect(rungs.decode(rungs.item(null, ladder))).toEqual(ladder)
    expect(rungs.decode({ pk: 'L', sk: 'l1', id: 'l1' })).toEqual({ id: 'l1', rungs: [] })
  })

  it('leaves out an empty list or map of ids, writes a full one, and reads both back', () => {
    const board = defineEntity(
      'board',
      {
        id: field('id', v.string()),
        pins: sparseListField('pins', { at: field('pinned_at', v.string()) }),
        cells: recordField('cells', { mark: optionalField('mark', v.string()) }),
      },
      { key: (_: null, b) => ({ pk: 'B', sk: b.id }) },
    )
    const empty = { id: 'b1', pins: [], cells: {} }
    const full = { id: 'b1', pins: [{ at: 't' }], cells: { c1: { mark: 'x' }, c2: { mark: null } } }

    expect(board.encode(empty)).toEqual({ id: 'b1' })
    expect(board.decode(board.item(null, empty))).toEqual(empty)
    expect(board.encode(full)).toEqual({
      id: 'b1',
      pins: [{ pinned_at: 't' }],
      cells: { c1: { mark: 'x' }, c2: {} },
    })
    expect(board.decode(board.item(null, full))).toEqual(full)
  })

  it('reads only some fields of an item, failing as the entity does', () => {
    const points = decoderOf('badge', { points: badge.fields.points })

    expect(points(badge.item('t1', full))).toEqual({ points: 5 })
    expect(() => points({ pk: 'T#t1', sk: 'BADGE#b1', points: 'x' })).toThrow(MalformedItem)
  })

  it('leaves out an empty map, and never writes an attribute another writer keeps', () => {
    const card = defineEntity(
      'card',
      {
        id: field('id', v.string()),
        extras: sparseField('extras', v.record(v.string(), v.unknown()), {}),
        holders: readOnlyField('holders', withDefault(v.array(v.string()), [])),
      },
      { key: (_: null, c) => ({ pk: 'C', sk: c.id }) },
    )
    const held = { id: 'c1', extras: {}, holders: ['u1'] }

    expect(card.encode(held)).toEqual({ id: 'c1' })
    expect(card.changeOf(held, { ...held, extras: { a: 1 }, holders: [] })).toEqual({
      set: { extras: { a: 1 } },
      remove: [],
    })
    expect(card.changeOf({ ...held, extras: { a: 1 } }, held)).toEqual({ set: {}, remove: ['extras'] })
    expect(card.decode({ pk: 'C', sk: 'c1', id: 'c1', holders: ['u2'] })).toEqual({
      id: 'c1',
      extras: {},
      holders: ['u2'],
    })
  })

  it('refuses a malformed item naming the entity, the key and the attribute, never the value', () => {
    const read = () => badge.decode({ pk: 'T#t1', sk: 'BADGE#b1', id: 'b1', points: 'secret-value' })

    expect(read).toThrow(MalformedItem)
    expect(read).toThrow(/badge/)
    expect(read).toThrow(/points/)
    expect(read).not.toThrow(/secret-value/)
  })
})
