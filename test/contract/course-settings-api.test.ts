/**
 * `GET|PATCH /courses/{id}/settings` (api-additions section 4): the settings `lms course configure`
 * sets, by the same service and rules, under the contract's names.
 */
import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { lms } from '../helpers/cli.ts'
import { client } from '../helpers/http.ts'
import { course, enroll, user } from '../helpers/learning.ts'
import { newTenant, type TestTenant } from '../helpers/tenants.ts'

const settingsOf = async (t: TestTenant, id: string) => {
  const r = await t.api.get(`/api/v1/courses/${id}/settings`)
  expect(r.status).toBe(200)
  return r.body.data
}

describe('GET /api/v1/courses/{id}/settings', () => {
  it('shows a new course’s defaults, and what the CLI set', async () => {
    // Prepare
    const t = await newTenant()
    const k = await course(t)
    const fresh = await settingsOf(t, k.id)

    // Act
    const cli = await lms('course', 'configure', '--tenant', t.slug, '--course', k.id, '--seat-limit', '7')
    const after = await settingsOf(t, k.id)

    // Assess
    expect(fresh).toEqual({
      requires_approval: false,
      seat_limit: null,
      waitlist: false,
      enrollment_opens_at: null,
      enrollment_closes_at: null,
      prerequisite_course_ids: [],
      category: null,
      language: 'en',
      certificate_validity_days: null,
      access_days: null,
      ceu: 0,
    })
    expect(cli.code).toBe(0)
    expect(after.seat_limit).toBe(7)
  })
})

describe('PATCH /api/v1/courses/{id}/settings', () => {
  it('changes the fields sent, keeps the others, and GET and the CLI see the change', async () => {
    // Prepare
    const t = await newTenant()
    const basics = await course(t)
    const k = await course(t)
    const change = {
      requires_approval: true,
      seat_limit: 12,
      waitlist: true,
      enrollment_opens_at: '2027-01-01T00:00:00+01:00',
      enrollment_closes_at: '2027-02-01T00:00:00Z',
      prerequisite_course_ids: [basics.id],
      category: 'Safety',
      language: 'fr-CA',
      certificate_validity_days: 365,
      access_days: 90,
      ceu: 1.5,
    }

    // Act
    const r = await t.api.patch(`/api/v1/courses/${k.id}/settings`, change)
    const partly = await t.api.patch(`/api/v1/courses/${k.id}/settings`, { seat_limit: null })

    // Assess
    expect(r.status).toBe(200)
    expect(r.body.data).toEqual({
      ...change,
      enrollment_opens_at: '2026-12-31T23:00:00.000Z',
      enrollment_closes_at: '2027-02-01T00:00:00.000Z',
    })
    expect(partly.status).toBe(200)
    expect(await settingsOf(t, k.id)).toEqual({ ...r.body.data, seat_limit: null })
    const printed = await lms('course', 'configure', '--tenant', t.slug, '--course', k.id)
    expect(printed.json).toMatchObject({
      requires_approval: true,
      seat_limit: null,
      category: 'Safety',
      prerequisites: [basics.id],
    })
  })

  it('rules as the CLI does: an approval course set over the API makes enrollments wait', async () => {
    // Prepare
    const t = await newTenant()
    const u = await user(t)
    const k = await course(t)

    // Act
    const r = await t.api.patch(`/api/v1/courses/${k.id}/settings`, { requires_approval: true })
    const e = await enroll(t, u.id, k.id)

    // Assess
    expect(r.status).toBe(200)
    expect(e.status).toBe('pending_approval')
  })

  it.each([
    [
      'enrollment_closes_at',
      { enrollment_opens_at: '2027-03-01T00:00:00Z', enrollment_closes_at: '2027-02-01T00:00:00Z' },
    ],
    ['prerequisite_course_ids', { prerequisite_course_ids: [randomUUID()] }],
    ['prerequisite_course_ids', { prerequisite_course_ids: ['not-an-id'] }],
    ['seat_limit', { seat_limit: 0 }],
    ['seat_limit', { seat_limit: 2.5 }],
    ['access_days', { access_days: 0 }],
    ['certificate_validity_days', { certificate_validity_days: -1 }],
    ['language', { language: 'not a language' }],
    ['ceu', { ceu: -1 }],
    ['waitlist', { waitlist: 'yes' }],
    ['enrollment_opens_at', { enrollment_opens_at: 'tomorrow' }],
    ['colour', { colour: 'blue' }],
  ])('refuses a bad %s (400 naming it), changing nothing', async (field, body) => {
    // Prepare
    const t = await newTenant()
    const k = await course(t)
    const before = await settingsOf(t, k.id)

    // Act
    const r = await t.api.patch(`/api/v1/courses/${k.id}/settings`, { requires_approval: true, ...body })

    // Assess
    expect(r.status).toBe(400)
    expect(r.body.error.message).toContain(field)
    expect(await settingsOf(t, k.id)).toEqual(before)
  })

  it('refuses moving one end of the window across the other, as the CLI does', async () => {
    // Prepare
    const t = await newTenant()
    const k = await course(t)
    const opens = '2027-03-01T00:00:00.000Z'
    expect(
      (await t.api.patch(`/api/v1/courses/${k.id}/settings`, { enrollment_opens_at: opens })).status,
    ).toBe(200)

    // Act
    const api = await t.api.patch(`/api/v1/courses/${k.id}/settings`, {
      enrollment_closes_at: '2027-02-01T00:00:00Z',
    })
    const cli = await lms(
      'course',
      'configure',
      '--tenant',
      t.slug,
      '--course',
      k.id,
      '--enrollment-closes-at',
      '2027-02-01T00:00:00Z',
    )

    // Assess
    expect(api.status).toBe(400)
    expect(api.body.error.message).toMatch(/enrollment_closes_at/)
    expect(cli.code).not.toBe(0)
    expect(await settingsOf(t, k.id)).toMatchObject({
      enrollment_opens_at: opens,
      enrollment_closes_at: null,
    })
  })

  it('needs the write scope (a read key gets 403, but reads) and answers 404 for another tenant’s course', async () => {
    // Prepare
    const t = await newTenant()
    const other = await newTenant()
    const k = await course(t)
    const reader = client(t.slug, await t.key(['read']))

    // Act
    const readerPatch = await reader.patch(`/api/v1/courses/${k.id}/settings`, { waitlist: true })
    const readerGet = await reader.get(`/api/v1/courses/${k.id}/settings`)
    const elsewhereGet = await other.api.get(`/api/v1/courses/${k.id}/settings`)
    const elsewherePatch = await other.api.patch(`/api/v1/courses/${k.id}/settings`, { waitlist: true })

    // Assess
    expect(readerPatch.status).toBe(403)
    expect(readerGet.status).toBe(200)
    expect(elsewhereGet.status).toBe(404)
    expect(elsewherePatch.status).toBe(404)
    expect((await settingsOf(t, k.id)).waitlist).toBe(false)
  })
})
