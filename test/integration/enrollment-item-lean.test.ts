/**
 * An enrollment item stores no null, zero or empty attribute (enrollment-items.ts: each costs its
 * name in the item and in its ALL-projected index entries, which every enrollment page reads), and
 * a change that empties one leaves nothing behind; the API shows them as before. The stored item
 * is read with the SDK's own client, apart from the product.
 */
import { describe, expect, it } from 'vitest'
import { keys } from '../../shared/store/core/keys.ts'
import { course, user } from '../helpers/learning.ts'
import { newTenant } from '../helpers/tenants.ts'
import { storedItem } from '../helpers/stored-item.ts'

const UNSET_WHEN_NEW = [
  'due_date',
  'completed_at',
  'started_at',
  'score',
  'pass_fail',
  'certificate_id',
  'certificate_number',
  'certificate_expires_at',
  'last_activity_at',
  'access_expires_at',
  'progress_percent',
  'time_spent_seconds',
  'modules',
  'quiz_attempts',
]

describe('Rule: an enrollment item holds no empty attribute', () => {
  it('leaves out what a new enrollment does not have, and the API still shows null and 0', async () => {
    // Prepare
    const t = await newTenant()
    const [learner, c] = await Promise.all([user(t), course(t)])

    // Act
    const created = await t.api.post('/api/v1/enrollments', { user_id: learner.id, course_id: c.id })

    // Assess
    expect(created.status).toBe(201)
    const item = await storedItem(keys.enrollment(t.tenant, created.body.data.id))
    expect(Object.keys(item).filter((k) => UNSET_WHEN_NEW.includes(k))).toEqual([])
    expect(Object.entries(item).filter(([, value]) => value === null)).toEqual([])
    const read = (await t.api.get(`/api/v1/enrollments/${created.body.data.id}`)).body.data
    expect(read).toMatchObject({ due_date: null, completed_at: null, score: null, progress_percent: 0 })
  })

  it('stores a due date while it is set and drops it when it is cleared', async () => {
    // Prepare
    const t = await newTenant()
    const [learner, c] = await Promise.all([user(t), course(t)])
    const id = (await t.api.post('/api/v1/enrollments', { user_id: learner.id, course_id: c.id })).body.data
      .id as string
    const due = '2027-03-01T00:00:00.000Z'

    // Act
    const set = await t.api.patch(`/api/v1/enrollments/${id}`, { due_date: due })
    const whileSet = await storedItem(keys.enrollment(t.tenant, id))
    const cleared = await t.api.patch(`/api/v1/enrollments/${id}`, { due_date: null })

    // Assess
    expect([set.status, cleared.status]).toEqual([200, 200])
    expect(whileSet.due_date).toBe(due)
    const item = await storedItem(keys.enrollment(t.tenant, id))
    expect('due_date' in item).toBe(false)
    expect(item.user_id).toBe(learner.id)
    expect((await t.api.get(`/api/v1/enrollments/${id}`)).body.data.due_date).toBeNull()
  })
})
