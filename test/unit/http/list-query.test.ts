import { describe, expect, it } from 'vitest'
import { ValidationError } from '../../../shared/domain/errors.ts'
import { paging, sorting } from '../../../shared/http/list-query.ts'

describe('Function: paging', () => {
  it.each([
    [{}, { page: 1, perPage: 50, offset: 0 }],
    [{ page: '0' }, { page: 1, perPage: 50, offset: 0 }],
    [
      { page: '3', per_page: '20' },
      { page: 3, perPage: 20, offset: 40 },
    ],
    [{ per_page: '500' }, { page: 1, perPage: 200, offset: 0 }],
    [{ per_page: '0' }, { page: 1, perPage: 1, offset: 0 }],
    [
      { page: '-4', per_page: '-1' },
      { page: 1, perPage: 1, offset: 0 },
    ],
  ])('clamps %j to %j', (query, expected) => {
    expect(paging(query)).toEqual(expected)
  })

  it('refuses a page that is not an integer, naming it', () => {
    expect(() => paging({ page: '1.5' })).toThrow(ValidationError)
    expect(() => paging({ per_page: 'ten' })).toThrow(/per_page/)
  })
})

describe('Function: sorting', () => {
  it('defaults, accepts listed fields, refuses others', () => {
    const allowed = ['created_at', 'name'] as const
    expect(sorting({}, allowed, { by: 'created_at', order: 'desc' })).toEqual({
      by: 'created_at',
      order: 'desc',
    })
    expect(
      sorting({ sort_by: 'name', sort_order: 'asc' }, allowed, { by: 'created_at', order: 'desc' }),
    ).toEqual({
      by: 'name',
      order: 'asc',
    })
    expect(() => sorting({ sort_by: 'email' }, allowed, { by: 'created_at', order: 'desc' })).toThrow(
      /sort_by/,
    )
    expect(() => sorting({ sort_order: 'DESC' }, allowed, { by: 'created_at', order: 'desc' })).toThrow(
      /sort_order/,
    )
  })
})
