/**
 * A course item stores no null, false, zero or empty attribute (courses-store.ts: each costs its
 * name in the item and in its three index entries, rewritten by every enrollment), apart from the
 * counts its conditions compare; a change that empties one removes it; the API shows them as
 * before. The stored item is read with the SDK's own client, apart from the product.
 */
import { describe, expect, it } from 'vitest'
import { configureCourse } from '../../shared/services/courses/courses-service.ts'
import { keys } from '../../shared/store/core/keys.ts'
import { course, user } from '../helpers/learning.ts'
import { newTenant } from '../helpers/tenants.ts'
import { storedItem } from '../helpers/stored-item.ts'

const nulls = (item: Record<string, unknown>): string[] =>
  Object.entries(item).flatMap(([name, value]) =>
    value === null
      ? [name]
      : typeof value === 'object' && !Array.isArray(value) && !(value instanceof Set)
        ? nulls(value as Record<string, unknown>).map((inner) => `${name}.${inner}`)
        : [],
  )

describe('Rule: a course item holds no empty attribute', () => {
  it('leaves out what a new course does not have, keeps its counts, and the API still shows null', async () => {
    // Prepare
    const t = await newTenant()

    // Act
    const created = await t.api.post('/api/v1/courses', { title: 'Lean course' })

    // Assess
    expect(created.status).toBe(201)
    const item = await storedItem(keys.course(t.tenant, created.body.data.id))
    expect(nulls(item)).toEqual([])
    for (const name of [
      'description',
      'category_id',
      'published_at',
      'short_description',
      'estimated_minutes',
    ])
      expect(item).not.toHaveProperty(name)
    expect(item).toMatchObject({ enrollment_count: 0, module_count: 0, seats_taken: 0 })
    expect((await t.api.get(`/api/v1/courses/${created.body.data.id}`)).body.data).toMatchObject({
      description: null,
      category_id: null,
      published_at: null,
    })
  })

  it('takes a setting out when it is cleared, and the seat limit it held stops applying', async () => {
    // Prepare
    const t = await newTenant()
    const c = await course(t)
    const [first, second] = await Promise.all([user(t), user(t)])
    await configureCourse(t.tenant, c.id, { seatLimit: 1 })
    expect(
      ((await storedItem(keys.course(t.tenant, c.id))).settings as Record<string, unknown>).seat_limit,
    ).toBe(1)
    expect((await t.api.post('/api/v1/enrollments', { user_id: first.id, course_id: c.id })).status).toBe(201)

    // Act
    await configureCourse(t.tenant, c.id, { seatLimit: null })
    const second201 = await t.api.post('/api/v1/enrollments', { user_id: second.id, course_id: c.id })

    // Assess
    const item = await storedItem(keys.course(t.tenant, c.id))
    expect(item.settings).not.toHaveProperty('seat_limit')
    expect(nulls(item)).toEqual([])
    expect(second201.status).toBe(201)
    // The first holds its seat; the second came in with no limit to hold one against.
    expect(item).toMatchObject({ enrollment_count: 2, seats_taken: 1, status: 'published' })
  })
})
