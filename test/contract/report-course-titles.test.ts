/**
 * Report rows name each course by its current title, read from the course tallies when a page
 * names many courses (decision 0026, "Titles"): a rename shows at once, a course never enrolled in
 * is no row, and another tenant's courses never lend a title.
 */
import { describe, expect, it } from 'vitest'
import { course, user } from '../helpers/learning.ts'
import { newTenant } from '../helpers/tenants.ts'

describe('Course titles in report rows', () => {
  it('shows each course’s current title, a rename included', async () => {
    // Prepare: three courses, a learner in two of them; another tenant with courses of its own.
    const t = await newTenant()
    const other = await newTenant()
    await course(other)
    const [a, b] = [await course(t), await course(t)]
    await course(t)
    const learner = await user(t)
    for (const c of [a, b]) {
      expect((await t.api.post('/api/v1/enrollments', { user_id: learner.id, course_id: c.id })).status).toBe(
        201,
      )
    }
    const renamed = await t.api.patch(`/api/v1/courses/${a.id}`, { title: 'Forklift safety, 2027 edition' })
    expect(renamed.status).toBe(200)

    // Act
    const r = await t.api.get('/api/v1/reports/enrollments')

    // Assess
    expect(r.status).toBe(200)
    const titles = Object.fromEntries(
      (r.body.data as { course_id: string; course_title: string }[]).map((row) => [
        row.course_id,
        row.course_title,
      ]),
    )
    expect(titles).toEqual({ [a.id]: 'Forklift safety, 2027 edition', [b.id]: b.title })
  })
})
