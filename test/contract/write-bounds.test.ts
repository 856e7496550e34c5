/**
 * Issue 26, points 2, 4 and 9 (decision 0027): what a write refuses before it reaches the store.
 * Timestamps and dates must name a real instant of a four-digit UTC year, numbers must fit
 * DynamoDB's range, and a body must be a JSON object. Each refusal is a 400 naming the field, and
 * changes nothing.
 */
import { describe, expect, it } from 'vitest'
import { putCustomFieldDef } from '../../shared/store/users/users-store.ts'
import { course, user } from '../helpers/learning.ts'
import { newTenant, userBody, type TestTenant } from '../helpers/tenants.ts'

async function withFields(t: TestTenant) {
  await putCustomFieldDef(t.tenant, {
    key: 'level_num',
    label: 'Level',
    type: 'number',
    required: false,
    options: [],
  })
  await putCustomFieldDef(t.tenant, {
    key: 'start',
    label: 'Start',
    type: 'date',
    required: false,
    options: [],
  })
}

describe('due_date (POST and PATCH /api/v1/enrollments)', () => {
  it('refuses an offset that moves the instant out of four-digit years, and an impossible day', async () => {
    // Prepare
    const t = await newTenant()
    const u = await user(t)
    const c = await course(t)

    // Act
    const overflow = await t.api.post('/api/v1/enrollments', {
      user_id: u.id,
      course_id: c.id,
      due_date: '9999-12-31T23:59:59-23:59',
    })
    const created = await t.api.post('/api/v1/enrollments', {
      user_id: u.id,
      course_id: c.id,
      due_date: '2026-06-01T10:00:00+02:00',
    })
    const id = created.body.data.id as string
    const impossible = await t.api.patch(`/api/v1/enrollments/${id}`, { due_date: '2026-02-30T00:00:00Z' })

    // Assess
    expect(overflow.status).toBe(400)
    expect(overflow.body.error.message).toContain('due_date')
    expect(created.status).toBe(201)
    expect(created.body.data.due_date).toBe('2026-06-01T08:00:00.000Z')
    expect(impossible.status).toBe(400)
    expect(impossible.body.error.message).toContain('due_date')
    const read = await t.api.get(`/api/v1/enrollments/${id}`)
    expect(read.body.data.due_date).toBe('2026-06-01T08:00:00.000Z')
  })
})

describe('custom_fields (POST and PATCH /api/v1/users)', () => {
  it('refuses a number DynamoDB cannot hold and keeps the user unchanged', async () => {
    // Prepare
    const t = await newTenant()
    await withFields(t)
    const u = await t.api.post('/api/v1/users', userBody({ custom_fields: { level_num: 3 } }))
    expect(u.status).toBe(201)

    // Act + Assess
    for (const level_num of [1e126, 1e-200, 1e300, -1e300, -1e126, 1e20, Number.MAX_SAFE_INTEGER + 2]) {
      const created = await t.api.post('/api/v1/users', userBody({ custom_fields: { level_num } }))
      expect(created.status, String(level_num)).toBe(400)
      expect(created.body.error.message).toContain('custom_fields.level_num')
      const patched = await t.api.patch(`/api/v1/users/${u.body.data.id}`, { custom_fields: { level_num } })
      expect(patched.status, String(level_num)).toBe(400)
      expect(patched.body.error.message).toContain('custom_fields.level_num')
    }
    for (const level_num of [0, Number.MAX_SAFE_INTEGER, 1e-130, -2.5]) {
      const ok = await t.api.patch(`/api/v1/users/${u.body.data.id}`, { custom_fields: { level_num } })
      expect(ok.status, String(level_num)).toBe(200)
      expect(ok.body.data.custom_fields.level_num).toBe(level_num)
    }
    const users = await t.api.get('/api/v1/users?per_page=200')
    expect(users.body.meta.total).toBe(1)
  })

  it('refuses a date field that is no day of the calendar', async () => {
    const t = await newTenant()
    await withFields(t)
    const impossible = await t.api.post('/api/v1/users', userBody({ custom_fields: { start: '2026-02-30' } }))
    expect(impossible.status).toBe(400)
    expect(impossible.body.error.message).toContain('custom_fields.start')
    const leap = await t.api.post('/api/v1/users', userBody({ custom_fields: { start: '2028-02-29' } }))
    expect(leap.status).toBe(201)
  })

  it('refuses custom_fields given as an array instead of reading it as no fields', async () => {
    const t = await newTenant()
    await withFields(t)
    const r = await t.api.post('/api/v1/users', userBody({ custom_fields: [] }))
    expect(r.status).toBe(400)
    expect(r.body.error.message).toContain('custom_fields')
  })
})

describe('PATCH bodies', () => {
  it('answers 400 naming the body for [] or null, never 200 as a change of nothing', async () => {
    // Prepare
    const t = await newTenant()
    const u = await user(t)
    const c = await course(t)
    const g = (await t.api.post('/api/v1/groups', { name: 'Sales' })).body.data as { id: string }

    // Act + Assess
    for (const path of [`/api/v1/users/${u.id}`, `/api/v1/courses/${c.id}`, `/api/v1/groups/${g.id}`]) {
      for (const rawBody of ['[]', 'null', '"x"', '7']) {
        const r = await t.api.patch(path, undefined, { rawBody })
        expect(r.status, `${path} ${rawBody}`).toBe(400)
        expect(r.body.error.message).toContain('body')
      }
    }
  })
})
