import { describe, expect, it } from 'vitest'
import {
  attributeChange,
  cond,
  conditionExpression,
  isEmptyUpdate,
  projectionExpression,
  queryExpression,
  updateExpression,
} from '../../../shared/store/core/expression.ts'

describe('Function: updateExpression', () => {
  it('sets, adds and removes with placeholders only, leaving zero deltas out', () => {
    // Act
    const out = updateExpression({
      set: { title: 'New', 'settings.seat_limit': 5 },
      add: { enrollment_count: 1, seats_taken: 0 },
      remove: ['category_id'],
    })

    // Assess
    expect(out).toEqual({
      UpdateExpression: 'SET #n0 = :v0, #n1.#n2 = :v1 ADD #n3 :v2 REMOVE #n4',
      ExpressionAttributeNames: {
        '#n0': 'title',
        '#n1': 'settings',
        '#n2': 'seat_limit',
        '#n3': 'enrollment_count',
        '#n4': 'category_id',
      },
      ExpressionAttributeValues: { ':v0': 'New', ':v1': 5, ':v2': 1 },
    })
  })

  it('renders the condition with the same placeholders, reusing a name used twice', () => {
    // Act
    const out = updateExpression(
      { set: { updated_at: 'b' } },
      cond.and(cond.exists(), cond.eq('updated_at', 'a')),
    )

    // Assess
    expect(out.UpdateExpression).toBe('SET #n0 = :v0')
    expect(out.ConditionExpression).toBe('(attribute_exists(#n1)) AND (#n0 = :v1)')
    expect(out.ExpressionAttributeNames).toEqual({ '#n0': 'updated_at', '#n1': 'pk' })
    expect(out.ExpressionAttributeValues).toEqual({ ':v0': 'b', ':v1': 'a' })
  })

  it('adds elements to and deletes elements from set attributes, leaving empty sets out', () => {
    // Act
    const out = updateExpression({
      add: { group_ids: new Set(['g1']), tags: new Set<string>() },
      delete: { role_ids: new Set(['r1', 'r2']), other: new Set<string>() },
    })

    // Assess
    expect(out).toEqual({
      UpdateExpression: 'ADD #n0 :v0 DELETE #n1 :v1',
      ExpressionAttributeNames: { '#n0': 'group_ids', '#n1': 'role_ids' },
      ExpressionAttributeValues: { ':v0': new Set(['g1']), ':v1': new Set(['r1', 'r2']) },
    })
    expect(isEmptyUpdate({ add: { tags: new Set() }, delete: { other: new Set() } })).toBe(true)
    expect(isEmptyUpdate({ delete: { other: new Set(['x']) } })).toBe(false)
  })

  it('refuses an update that changes nothing', () => {
    expect(() => updateExpression({ add: { n: 0 } })).toThrow('must change something')
    expect(isEmptyUpdate({ add: { n: 0 }, set: {} })).toBe(true)
    expect(isEmptyUpdate({ add: { n: -1 } })).toBe(false)
  })
})

describe('Function: attributeChange', () => {
  it('sets what differs, removes what the writer leaves out, and leaves what is equal', () => {
    // Act
    const change = attributeChange(
      { title: 'A', description: 'old', settings: { seat_limit: 5 }, tags: ['x'] },
      { title: 'A', description: undefined, settings: { seat_limit: 6 }, tags: ['x'], category_id: 'c-1' },
    )

    // Assess
    expect(change).toEqual({
      set: { settings: { seat_limit: 6 }, category_id: 'c-1' },
      remove: ['description'],
    })
  })

  it('removes nothing that was not there', () => {
    expect(attributeChange({ title: 'A' }, { title: 'A', description: undefined })).toEqual({
      set: {},
      remove: [],
    })
  })
})

describe('Function: conditionExpression', () => {
  it('composes comparisons, lists and negation, never splicing a value into the string', () => {
    // Act
    const out = conditionExpression(
      cond.or(
        cond.notExists('users_active'),
        cond.and(
          cond.lt('users_active', 5),
          cond.oneOf('status', ['a', 'b']),
          cond.not(cond.beginsWith('sk', 'X#')),
        ),
      ),
    )

    // Assess
    expect(out.ConditionExpression).toBe(
      '(attribute_not_exists(#n0)) OR ((#n0 < :v0) AND (#n1 IN (:v1, :v2)) AND (NOT (begins_with(#n2, :v3))))',
    )
    expect(out.ExpressionAttributeValues).toEqual({ ':v0': 5, ':v1': 'a', ':v2': 'b', ':v3': 'X#' })
  })

  it('checks an attribute’s type, so a stored null never compares as a date', () => {
    expect(conditionExpression(cond.and(cond.gt('due_date', '2026'), cond.hasType('due_date', 'S')))).toEqual(
      {
        ConditionExpression: '(#n0 > :v0) AND (attribute_type(#n0, :v1))',
        ExpressionAttributeNames: { '#n0': 'due_date' },
        ExpressionAttributeValues: { ':v0': '2026', ':v1': 'S' },
      },
    )
  })

  it('leaves out the values map when the condition has no value', () => {
    expect(conditionExpression(cond.notExists())).toEqual({
      ConditionExpression: 'attribute_not_exists(#n0)',
      ExpressionAttributeNames: { '#n0': 'pk' },
    })
  })
})

describe('Function: projectionExpression', () => {
  it('names every attribute, a map key as a path of two names', () => {
    expect(projectionExpression(['id', 'title', 'settings.ceu'])).toEqual({
      ProjectionExpression: '#n0, #n1, #n2.#n3',
      ExpressionAttributeNames: { '#n0': 'id', '#n1': 'title', '#n2': 'settings', '#n3': 'ceu' },
    })
  })
})

describe('Function: queryExpression', () => {
  it('narrows a key range with between, both ends as values', () => {
    // Act
    const out = queryExpression({
      key: cond.and(cond.eq('gsi1pk', 'T#1#USERS'), cond.between('gsi1sk', 'a', 'b')),
    })

    // Assess
    expect(out).toEqual({
      KeyConditionExpression: '(#n0 = :v0) AND (#n1 BETWEEN :v1 AND :v2)',
      ExpressionAttributeNames: { '#n0': 'gsi1pk', '#n1': 'gsi1sk' },
      ExpressionAttributeValues: { ':v0': 'T#1#USERS', ':v1': 'a', ':v2': 'b' },
    })
  })

  it('shares placeholders between key condition, filter and projection', () => {
    // Act
    const out = queryExpression({
      key: cond.and(cond.eq('pk', 'T#1'), cond.beginsWith('sk', 'USER#')),
      filter: cond.eq('is_active', true),
      project: ['pk', 'sk', 'id'],
    })

    // Assess
    expect(out).toEqual({
      KeyConditionExpression: '(#n0 = :v0) AND (begins_with(#n1, :v1))',
      FilterExpression: '#n2 = :v2',
      ProjectionExpression: '#n0, #n1, #n3',
      ExpressionAttributeNames: { '#n0': 'pk', '#n1': 'sk', '#n2': 'is_active', '#n3': 'id' },
      ExpressionAttributeValues: { ':v0': 'T#1', ':v1': 'USER#', ':v2': true },
    })
  })
})
