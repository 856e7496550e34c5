import { describe, expect, it } from 'vitest'
import { ValidationError } from '../../../shared/domain/errors.ts'
import { MAX_PAGE, paging, sorting } from '../../../shared/http/list-query.ts'

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

describe('Function: paging (issue 10, item 5)', () => {
  it.each([
    ['1 followed by 400 zeros (Infinity)', `1${'0'.repeat(400)}`],
    ['99999999999999999999', '99999999999999999999'],
    ['2^53', String(2 ** 53)],
    ['1001', '1001'],
  ])('Attack: clamps page=%s to MAX_PAGE, a safe integer, with a bounded offset', (_label, page) => {
    const p = paging({ page, per_page: '200' })
    expect(p).toEqual({ page: MAX_PAGE, perPage: 200, offset: (MAX_PAGE - 1) * 200 })
    expect(Number.isSafeInteger(p.page)).toBe(true)
  })

  it('keeps page 1000 and a negative page of any length in range', () => {
    expect(paging({ page: '1000' }).page).toBe(1000)
    expect(paging({ page: `-1${'0'.repeat(400)}` }).page).toBe(1)
  })
})
