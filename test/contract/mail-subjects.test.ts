/**
 * Issue 26, point 9 (decision 0027): a course title carrying bidirectional override characters
 * reaches the learner's e-mail subject without them, so it reads in the order it was written.
 */
import { describe, expect, it } from 'vitest'
import { lms } from '../helpers/cli.ts'
import { user } from '../helpers/learning.ts'
import { newTenant } from '../helpers/tenants.ts'
import { until } from '../helpers/until.ts'

describe('Notifications: e-mail subjects', () => {
  it('drops bidirectional embeddings, overrides and isolates from the subject', async () => {
    // Prepare: a published course whose title reverses part of itself when displayed.
    const t = await newTenant()
    const learner = await user(t)
    const title = 'Invoice \u202Efdp.exe\u202C and \u2067isolated\u2069 \u202Aembedded\u202C'
    const created = await t.api.post('/api/v1/courses', { title })
    expect(created.status).toBe(201)
    const id = created.body.data.id as string
    expect((await t.api.patch(`/api/v1/courses/${id}`, { status: 'published' })).status).toBe(200)

    // Act
    expect((await t.api.post('/api/v1/enrollments', { user_id: learner.id, course_id: id })).status).toBe(201)
    const mails = await until(
      async () => {
        const out = await lms('mail', 'list', '--tenant', t.slug, '--to', learner.email)
        expect(out.code, out.stdout).toBe(0)
        return out.json.data as { subject: string }[]
      },
      (l) => l.length >= 1,
    )

    // Assess
    expect(mails[0]?.subject).toBe('You are enrolled in Invoice fdp.exe and isolated embedded')
  })
})
