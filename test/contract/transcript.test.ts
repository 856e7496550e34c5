/**
 * GET /api/v1/users/{id}/transcript with enrollments behind it: the full object, totals with CEU
 * and certificates, every filter, and the CSV download byte for byte. Course settings, learner
 * activity and imports have no API route: they are prepared through the services.
 */
import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { configureCourse } from '../../shared/services/courses/courses-service.ts'
import { importCompletion, recordActivity } from '../../shared/services/enrollments/learner-service.ts'
import { enroll, enrollAt } from '../helpers/learning.ts'
import { newTenant, userBody, type TestTenant } from '../helpers/tenants.ts'

const THIS_YEAR = new Date().getUTCFullYear()
const LAST_YEAR = THIS_YEAR - 1

async function course(t: TestTenant, title: string, modules: readonly string[] = []) {
  const r = await t.api.post('/api/v1/courses', { title })
  expect(r.status).toBe(201)
  const id = r.body.data.id as string
  const moduleIds: string[] = []
  for (const [i, type] of modules.entries()) {
    const m = await t.api.post(`/api/v1/courses/${id}/modules`, { title: `M${i}`, module_type: type })
    expect(m.status).toBe(201)
    moduleIds.push(m.body.data.id)
  }
  expect((await t.api.patch(`/api/v1/courses/${id}`, { status: 'published' })).status).toBe(200)
  return { id, moduleIds }
}

const TITLES = {
  certified: 'Safety, "Level 1" — été',
  imported: 'First Aid',
  active: 'Forklift',
  dropped: 'Ladders',
} as const

/**
 * One learner with four courses: completed natively with a certificate (last year), imported
 * (2019), active with progress and a due date, and dropped (the last two enrolled early this year,
 * a day apart).
 */
async function learnerWithHistory() {
  const t = await newTenant()
  const u = (await t.api.post('/api/v1/users', userBody())).body.data as { id: string }
  const certified = await course(t, TITLES.certified, ['video', 'document'])
  const imported = await course(t, TITLES.imported)
  const active = await course(t, TITLES.active, ['video', 'video'])
  const dropped = await course(t, TITLES.dropped)
  await configureCourse(t.tenant, certified.id, { ceu: 1.5, certificateValidityDays: 30 })
  await configureCourse(t.tenant, imported.id, { ceu: 2 })
  await configureCourse(t.tenant, active.id, { ceu: 4 })

  const c = await enroll(t, u.id, certified.id)
  await recordActivity(t.tenant, c.id, {
    moduleId: certified.moduleIds[0] ?? '',
    kind: 'complete',
    score: 80,
    timeSpentSeconds: 120,
    at: `${LAST_YEAR}-03-01T10:00:00.000Z`,
  })
  await recordActivity(t.tenant, c.id, {
    moduleId: certified.moduleIds[1] ?? '',
    kind: 'complete',
    at: `${LAST_YEAR}-03-02T09:00:00.000Z`,
  })
  const i = await importCompletion(t.tenant, {
    userId: u.id,
    courseId: imported.id,
    completedAt: '2019-05-04T10:00:00.000Z',
    score: 88,
  })
  const a = await enrollAt(t, `${THIS_YEAR}-01-02T08:00:00.000Z`, {
    user_id: u.id,
    course_id: active.id,
    due_date: '2027-01-01T00:00:00Z',
  })
  await recordActivity(t.tenant, a.id, {
    moduleId: active.moduleIds[0] ?? '',
    kind: 'complete',
    timeSpentSeconds: 30,
    at: `${THIS_YEAR}-01-05T08:00:00.000Z`,
  })
  const d = await enrollAt(t, `${THIS_YEAR}-01-03T08:00:00.000Z`, { user_id: u.id, course_id: dropped.id })
  expect((await t.api.delete(`/api/v1/enrollments/${d.id}`)).status).toBe(204)
  const certificate = (await t.api.get(`/api/v1/enrollments/${c.id}`)).body.data.certificate_id as string
  return {
    t,
    userId: u.id,
    courses: { certified, imported, active, dropped },
    ids: { certified: c.id, imported: i.id, active: a.id, dropped: d.id },
    certificate,
  }
}

type History = Awaited<ReturnType<typeof learnerWithHistory>>

async function transcript(h: History, query = '') {
  const r = await h.t.api.get(`/api/v1/users/${h.userId}/transcript${query}`)
  expect(r.status).toBe(200)
  return r
}

const itemIds = (r: { body: { data: { items: { id: string }[] } } }) => r.body.data.items.map((i) => i.id)

describe('Route: GET /api/v1/users/{id}/transcript', () => {
  it('returns the full object: every item newest first, with totals over completions, time, CEU and certificates', async () => {
    // Prepare
    const h = await learnerWithHistory()

    // Act
    const reply = await transcript(h)

    // Assess
    expect(reply.body.error).toBeNull()
    expect(reply.body.meta).toEqual({ total: 4 })
    const data = reply.body.data
    expect(data.user_id).toBe(h.userId)
    expect(Date.parse(data.generated_at)).not.toBeNaN()
    expect(data.totals).toEqual({
      completed: 2,
      in_progress: 1,
      time_spent_seconds: 150,
      ceu_total: 3.5,
      ceu_label: 'CEU',
      certificates: 1,
    })
    expect(itemIds(reply)).toEqual([h.ids.dropped, h.ids.active, h.ids.certified, h.ids.imported])
    const [dropped, active, certified, imported] = data.items
    expect(certified).toEqual({
      id: h.ids.certified,
      type: 'course',
      item_id: h.courses.certified.id,
      title: TITLES.certified,
      status: 'completed',
      started_at: `${LAST_YEAR}-03-01T10:00:00.000Z`,
      completed_at: `${LAST_YEAR}-03-02T09:00:00.000Z`,
      due_date: null,
      expires_at: `${LAST_YEAR}-04-01T09:00:00.000Z`,
      score_percent: 80,
      time_spent_seconds: 120,
      progress_percent: 100,
      certificate_id: h.certificate,
      certificate_number: expect.stringMatching(new RegExp(`^CERT-${LAST_YEAR}-`)),
      ceu_value: 1.5,
      ceu_label: 'CEU',
    })
    expect(imported).toMatchObject({
      item_id: h.courses.imported.id,
      title: TITLES.imported,
      status: 'completed',
      completed_at: '2019-05-04T10:00:00.000Z',
      expires_at: null,
      score_percent: 88,
      certificate_id: null,
      certificate_number: null,
      ceu_value: 2,
    })
    expect(active).toMatchObject({
      status: 'active',
      started_at: `${THIS_YEAR}-01-05T08:00:00.000Z`,
      completed_at: null,
      due_date: '2027-01-01T00:00:00.000Z',
      score_percent: null,
      time_spent_seconds: 30,
      progress_percent: 50,
      ceu_value: 4,
    })
    expect(dropped).toMatchObject({
      status: 'dropped',
      title: TITLES.dropped,
      completed_at: null,
      ceu_value: 0,
    })
  })

  it('filters by completed_after (dropping unfinished records) and completed_before', async () => {
    // Prepare
    const h = await learnerWithHistory()

    // Act
    const after2020 = await transcript(h, '?completed_after=2020-01-01T00:00:00Z')
    const after2019 = await transcript(h, '?completed_after=2019-01-01T00:00:00Z')
    const before = await transcript(h, `?completed_before=${LAST_YEAR}-01-01T00:00:00Z`)
    const between = await transcript(
      h,
      `?completed_after=2019-01-01T00:00:00Z&completed_before=${LAST_YEAR}-03-03T00:00:00%2B01:00`,
    )

    // Assess
    expect(itemIds(after2020)).toEqual([h.ids.certified])
    expect(after2020.body.meta).toEqual({ total: 1 })
    expect(after2020.body.data.totals).toEqual({
      completed: 1,
      in_progress: 0,
      time_spent_seconds: 120,
      ceu_total: 1.5,
      ceu_label: 'CEU',
      certificates: 1,
    })
    expect(itemIds(after2019)).toEqual([h.ids.certified, h.ids.imported])
    expect(itemIds(before)).toEqual([h.ids.dropped, h.ids.active, h.ids.imported])
    expect(itemIds(between)).toEqual([h.ids.certified, h.ids.imported])
  })

  it('filters by status: completed, in_progress, other (dropped or expired) and all', async () => {
    // Prepare
    const h = await learnerWithHistory()

    // Act
    const completed = await transcript(h, '?status=completed')
    const inProgress = await transcript(h, '?status=in_progress')
    const other = await transcript(h, '?status=other')
    const all = await transcript(h, '?status=all')

    // Assess
    expect(itemIds(completed)).toEqual([h.ids.certified, h.ids.imported])
    expect(completed.body.data.totals).toMatchObject({ completed: 2, in_progress: 0, ceu_total: 3.5 })
    expect(itemIds(inProgress)).toEqual([h.ids.active])
    expect(inProgress.body.data.totals).toMatchObject({
      completed: 0,
      in_progress: 1,
      time_spent_seconds: 30,
      ceu_total: 0,
      certificates: 0,
    })
    expect(itemIds(other)).toEqual([h.ids.dropped])
    expect(other.body.meta).toEqual({ total: 1 })
    expect(itemIds(all)).toEqual(itemIds(await transcript(h)))
  })

  it('filters by type: course and all list the courses, path lists nothing', async () => {
    // Prepare
    const h = await learnerWithHistory()

    // Act
    const courses = await transcript(h, '?type=course')
    const paths = await transcript(h, '?type=path')
    const all = await transcript(h, '?type=all')

    // Assess
    expect(courses.body.meta).toEqual({ total: 4 })
    expect(courses.body.data.items.every((i: { type: string }) => i.type === 'course')).toBe(true)
    expect(paths.body.data.items).toEqual([])
    expect(paths.body.meta).toEqual({ total: 0 })
    expect(paths.body.data.totals).toMatchObject({
      completed: 0,
      in_progress: 0,
      ceu_total: 0,
      certificates: 0,
    })
    expect(itemIds(all)).toEqual(itemIds(courses))
  })

  it('filters by year: the completion year, or the enrollment year for unfinished records', async () => {
    // Prepare
    const h = await learnerWithHistory()

    // Act
    const lastYear = await transcript(h, `?year=${LAST_YEAR}`)
    const thisYear = await transcript(h, `?year=${THIS_YEAR}`)
    const y2019 = await transcript(h, '?year=2019')
    const empty = await transcript(h, '?year=2001')
    const combined = await transcript(h, `?year=${THIS_YEAR}&status=in_progress`)

    // Assess
    expect(itemIds(lastYear)).toEqual([h.ids.certified])
    expect(itemIds(thisYear)).toEqual([h.ids.dropped, h.ids.active])
    expect(itemIds(y2019)).toEqual([h.ids.imported])
    expect(empty.body).toMatchObject({ data: { items: [] }, meta: { total: 0 } })
    expect(itemIds(combined)).toEqual([h.ids.active])
  })

  it('answers 400 naming the parameter for an invalid filter or format, 404 for an unknown user', async () => {
    // Prepare
    const t = await newTenant()
    const u = (await t.api.post('/api/v1/users', userBody())).body.data as { id: string }
    const cases: [string, string][] = [
      ['status=finished', 'status'],
      ['type=book', 'type'],
      ['year=20x6', 'year'],
      ['year=12345', 'year'],
      ['completed_after=yesterday', 'completed_after'],
      ['completed_before=2026-01-01', 'completed_before'],
      ['format=xml', 'format'],
    ]

    // Act
    const replies = await Promise.all(cases.map(([q]) => t.api.get(`/api/v1/users/${u.id}/transcript?${q}`)))
    const unknown = await t.api.get(`/api/v1/users/${randomUUID()}/transcript`)
    const notUuid = await t.api.get('/api/v1/users/me/transcript')

    // Assess
    replies.forEach((r, i) => {
      expect(r.status, cases[i]?.[0]).toBe(400)
      expect(r.body).toMatchObject({ data: null, meta: null, error: { code: 400 } })
      expect(r.body.error.message).toContain(cases[i]?.[1])
    })
    expect(unknown.status).toBe(404)
    expect(notUuid.status).toBe(404)
  })

  it('keeps a deactivated learner’s history', async () => {
    // Prepare
    const h = await learnerWithHistory()
    const before = await transcript(h)
    expect((await h.t.api.delete(`/api/v1/users/${h.userId}`)).status).toBe(204)

    // Act
    const after = await transcript(h)

    // Assess
    expect(after.body.data.items).toEqual(before.body.data.items)
    expect(after.body.data.totals).toEqual(before.body.data.totals)
  })

  it('downloads format=csv as an RFC 4180 UTF-8 attachment with a BOM, byte for byte', async () => {
    // Prepare
    const h = await learnerWithHistory()
    const json = (await transcript(h)).body.data
    const number = json.items.find((i: { id: string }) => i.id === h.ids.certified)
      .certificate_number as string
    const rows = [
      'id,type,item_id,title,status,started_at,completed_at,due_date,expires_at,score_percent,' +
        'time_spent_seconds,progress_percent,certificate_id,certificate_number,ceu_value,ceu_label',
      `${h.ids.dropped},course,${h.courses.dropped.id},Ladders,dropped,,,,,,0,0,,,0,CEU`,
      `${h.ids.active},course,${h.courses.active.id},Forklift,active,${THIS_YEAR}-01-05T08:00:00.000Z,,` +
        `2027-01-01T00:00:00.000Z,,,30,50,,,4,CEU`,
      `${h.ids.certified},course,${h.courses.certified.id},"Safety, ""Level 1"" — été",completed,` +
        `${LAST_YEAR}-03-01T10:00:00.000Z,${LAST_YEAR}-03-02T09:00:00.000Z,,${LAST_YEAR}-04-01T09:00:00.000Z,` +
        `80,120,100,${h.certificate},${number},1.5,CEU`,
      `${h.ids.imported},course,${h.courses.imported.id},First Aid,completed,2019-05-04T10:00:00.000Z,` +
        `2019-05-04T10:00:00.000Z,,,88,0,100,,,2,CEU`,
    ]
    const expected = Buffer.concat([
      Buffer.from([0xef, 0xbb, 0xbf]),
      Buffer.from(rows.map((r) => `${r}\r\n`).join(''), 'utf8'),
    ])

    // Act
    const reply = await h.t.api.get(`/api/v1/users/${h.userId}/transcript?format=csv`)

    // Assess
    expect(reply.status).toBe(200)
    expect(reply.headers['content-type']).toBe('text/csv; charset=utf-8')
    expect(reply.headers['content-disposition']).toBe(`attachment; filename="transcript-${h.userId}.csv"`)
    expect(reply.raw.toString('hex')).toBe(expected.toString('hex'))
    expect(reply.raw.equals(expected)).toBe(true)
  })

  it('applies the filters to the CSV too', async () => {
    // Prepare
    const h = await learnerWithHistory()
    const expected = Buffer.from(
      '\uFEFFid,type,item_id,title,status,started_at,completed_at,due_date,expires_at,score_percent,' +
        'time_spent_seconds,progress_percent,certificate_id,certificate_number,ceu_value,ceu_label\r\n' +
        `${h.ids.dropped},course,${h.courses.dropped.id},Ladders,dropped,,,,,,0,0,,,0,CEU\r\n`,
      'utf8',
    )

    // Act
    const reply = await h.t.api.get(`/api/v1/users/${h.userId}/transcript?format=csv&status=other`)

    // Assess
    expect(reply.status).toBe(200)
    expect(reply.headers['content-disposition']).toMatch(/^attachment;/)
    expect(reply.raw.equals(expected)).toBe(true)
  })
})
