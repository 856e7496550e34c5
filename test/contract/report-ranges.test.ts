/**
 * Issue 26, points 1, 2, 3 and 9 (decision 0027): the reports' date ranges and timestamps are
 * checked once, by the schemas the GET routes and the export POST share, so what a page refuses an
 * export refuses too, with a 400 naming the field, and nothing reaches DynamoDB that it cannot run.
 */
import { describe, expect, it } from 'vitest'
import { course, user } from '../helpers/learning.ts'
import { newTenant, type TestTenant } from '../helpers/tenants.ts'

async function refused(t: TestTenant, path: string, field: string) {
  const r = await t.api.get(path)
  expect(r.status, path).toBe(400)
  expect(r.body.error.message, path).toContain(field)
}

async function exportRefused(t: TestTenant, body: Record<string, unknown>, field: string) {
  const r = await t.api.post('/api/v1/reports/export', body)
  expect(r.status, JSON.stringify(body)).toBe(400)
  expect(r.body.error.message).toContain(field)
}

const JAN = '2026-01-01T00:00:00Z'
const JUNE = '2026-06-01T00:00:00Z'

describe('GET /api/v1/reports/completions and /enrollments with a range', () => {
  it('answers 400 naming the lower bound for an inverted or empty range, and 200 for an ordered one', async () => {
    // Prepare
    const t = await newTenant()

    // Act + Assess
    await refused(
      t,
      `/api/v1/reports/completions?completed_after=${JUNE}&completed_before=${JAN}`,
      'completed_after',
    )
    await refused(
      t,
      `/api/v1/reports/completions?completed_after=${JAN}&completed_before=${JAN}`,
      'completed_after',
    )
    await refused(
      t,
      `/api/v1/reports/enrollments?enrolled_after=${JUNE}&enrolled_before=${JAN}`,
      'enrolled_after',
    )
    await refused(
      t,
      `/api/v1/reports/enrollments?enrolled_after=${JAN}&enrolled_before=${JAN}`,
      'enrolled_after',
    )
    await refused(
      t,
      `/api/v1/reports/completions?sort_by=score&completed_after=${JUNE}&completed_before=${JAN}`,
      'completed_after',
    )
    await refused(t, `/api/v1/users?created_after=${JUNE}&created_before=${JAN}`, 'created_after')
    await refused(
      t,
      `/api/v1/reports/users/activity?active_after=${JUNE}&active_before=${JAN}`,
      'active_after',
    )
    await refused(
      t,
      `/api/v1/reports/courses/performance?period_start=${JUNE}&period_end=${JAN}`,
      'period_start',
    )
    const ordered = await t.api.get(
      `/api/v1/reports/completions?completed_after=${JAN}&completed_before=${JUNE}`,
    )
    expect(ordered.status).toBe(200)
    expect(ordered.body.meta.total).toBe(0)
    // Both ends of a period are in: one instant is a period.
    const instant = await t.api.get(
      `/api/v1/reports/courses/performance?period_start=${JAN}&period_end=${JAN}`,
    )
    expect(instant.status).toBe(200)
  })
})

describe('timestamps in report filters', () => {
  it('refuses what is no four-digit-year UTC instant, or no day of the calendar, naming the field', async () => {
    // Prepare
    const t = await newTenant()
    const q = encodeURIComponent

    // Act + Assess
    await refused(
      t,
      `/api/v1/reports/completions?completed_before=${q('9999-12-31T23:59:59-23:59')}`,
      'completed_before',
    )
    await refused(
      t,
      `/api/v1/reports/completions?completed_after=${q('0000-01-01T00:00:00+00:01')}`,
      'completed_after',
    )
    await refused(
      t,
      `/api/v1/reports/enrollments?enrolled_after=${q('2026-02-30T00:00:00Z')}`,
      'enrolled_after',
    )
    await refused(t, `/api/v1/reports/compliance?as_of=${q('2026-01-01T24:00:00Z')}`, 'as_of')
    await refused(
      t,
      `/api/v1/reports/courses/performance?period_start=${q('9999-12-31T23:59:59-23:59')}`,
      'period_start',
    )
    const offset = await t.api.get(
      `/api/v1/reports/completions?completed_after=${q('2026-01-01T01:00:00+01:00')}&completed_before=${q(JUNE)}`,
    )
    expect(offset.status).toBe(200)
  })
})

describe('POST /api/v1/reports/export', () => {
  it('refuses the filters its report refuses (an inverted or empty range), so no job is queued to fail', async () => {
    // Prepare
    const t = await newTenant()

    // Act + Assess
    await exportRefused(
      t,
      { report_type: 'completions', filters: { completed_after: JUNE, completed_before: JAN } },
      'filters.completed_after',
    )
    await exportRefused(
      t,
      { report_type: 'enrollments', filters: { enrolled_after: JAN, enrolled_before: JAN } },
      'filters.enrolled_after',
    )
    await exportRefused(
      t,
      { report_type: 'course_performance', filters: { period_start: JUNE, period_end: JAN } },
      'filters.period_start',
    )
    await exportRefused(
      t,
      { report_type: 'completions', filters: { completed_before: '9999-12-31T23:59:59-23:59' } },
      'filters.completed_before',
    )
    const ordered = await t.api.post('/api/v1/reports/export', {
      report_type: 'completions',
      filters: { completed_after: JAN, completed_before: JUNE },
    })
    expect(ordered.status).toBe(202)
  })

  it('refuses filters that are not an object (an array) naming filters', async () => {
    const t = await newTenant()
    await exportRefused(t, { report_type: 'completions', filters: [] }, 'filters')
    await exportRefused(t, { report_type: 'completions', filters: ['completed_after'] }, 'filters')
  })

  it('estimates the wait from the report rows for course performance and user activity too', async () => {
    // Prepare: an empty tenant, and one with published courses and users.
    const empty = await newTenant()
    const busy = await newTenant()
    await course(busy)
    await user(busy)
    const estimate = async (t: TestTenant, report_type: string) => {
      const r = await t.api.post('/api/v1/reports/export', { report_type })
      expect(r.status).toBe(202)
      return r.body.data.estimated_completion_seconds as number
    }

    // Act + Assess
    for (const type of ['course_performance', 'user_activity']) {
      expect(await estimate(busy, type), type).toBeGreaterThan(await estimate(empty, type))
    }
  })
})

describe('GET /api/v1/reports/courses/performance?category=', () => {
  it('refuses control characters in the category name, on the page and in an export', async () => {
    const t = await newTenant()
    await refused(
      t,
      `/api/v1/reports/courses/performance?category=${encodeURIComponent('Sales\u0007')}`,
      'category',
    )
    await exportRefused(
      t,
      { report_type: 'course_performance', filters: { category: 'Sales\n\u001b[31m' } },
      'filters.category',
    )
  })
})
