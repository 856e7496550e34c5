/**
 * Issue 10, item 5: `page` is clamped to a documented maximum, so `meta.page` is always a safe
 * integer and an offset page never reads more than MAX_PAGE × per_page entries before it.
 */
import { describe, expect, it } from 'vitest'
import { MAX_PAGE } from '../../shared/http/list-query.ts'
import { newTenant, userBody } from '../helpers/tenants.ts'

const HUGE_PAGES = [
  ['1 followed by 400 zeros (Infinity)', `1${'0'.repeat(400)}`],
  ['99999999999999999999', '99999999999999999999'],
  ['2^53 (past the safe integers)', String(Number.MAX_SAFE_INTEGER + 1)],
] as const

const LISTS = [
  '/api/v1/users',
  '/api/v1/courses',
  '/api/v1/groups',
  '/api/v1/enrollments',
  '/api/v1/completions',
  '/api/v1/webhooks/deliveries',
]

describe('Attack: page numbers no client can represent', () => {
  it('documents a maximum page that is a safe integer', () => {
    expect(Number.isSafeInteger(MAX_PAGE)).toBe(true)
    expect(MAX_PAGE).toBe(1000)
  })

  it.each(HUGE_PAGES.flatMap(([label, page]) => LISTS.map((path) => [path, label, page] as const)))(
    'Attack: GET %s with page=%s answers 200 with meta.page clamped to the maximum, a safe integer',
    async (path, _label, page) => {
      // Prepare
      const t = await newTenant()

      // Act
      const reply = await t.api.get(`${path}?page=${page}&per_page=2`)

      // Assess
      expect(reply.status).toBe(200)
      expect(reply.body.meta).toEqual({ page: MAX_PAGE, per_page: 2, total: 0 })
      expect(Number.isSafeInteger(reply.body.meta.page)).toBe(true)
      expect(reply.body.data).toEqual([])
    },
  )

  it('Attack: page=1 followed by 400 zeros lists the clamped page, past the end of a small tenant', async () => {
    // Prepare
    const t = await newTenant()
    for (let i = 0; i < 3; i++) expect((await t.api.post('/api/v1/users', userBody())).status).toBe(201)

    // Act
    const huge = await t.api.get(`/api/v1/users?page=1${'0'.repeat(400)}&per_page=200`)
    const last = await t.api.get(`/api/v1/users?page=${MAX_PAGE}&per_page=1`)
    const first = await t.api.get(`/api/v1/users?page=000001&per_page=1`)

    // Assess
    expect(huge.text).toContain(`"page":${MAX_PAGE}`)
    expect(huge.body.meta).toEqual({ page: MAX_PAGE, per_page: 200, total: 3 })
    expect(huge.body.data).toEqual([])
    expect(last.body.meta).toEqual({ page: MAX_PAGE, per_page: 1, total: 3 })
    expect(first.body.meta).toEqual({ page: 1, per_page: 1, total: 3 })
    expect(first.body.data).toHaveLength(1)
  })
})
