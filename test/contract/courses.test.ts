import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { EntitlementError } from '../../shared/domain/errors.ts'
import { toErrorResult } from '../../shared/http/errors.ts'
import {
  configureCourse,
  createCourse as createCourseInStore,
  getCourse as getCourseInStore,
  listCourses as listCoursesInStore,
  updateCourse,
} from '../../shared/services/courses/courses-service.ts'
import { listOutboxEvents } from '../../shared/store/outbox/outbox-store.ts'
import { lms } from '../helpers/cli.ts'
import { client, type Reply } from '../helpers/http.ts'
import { newTenant, type TestTenant } from '../helpers/tenants.ts'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/

const listFields = [
  'category_id',
  'created_at',
  'enrollment_count',
  'estimated_minutes',
  'id',
  'published_at',
  'short_description',
  'status',
  'title',
  'updated_at',
]
const resourceFields = [...listFields, 'current_version_id', 'description'].sort()
const moduleFields = ['created_at', 'description', 'id', 'is_required', 'module_type', 'order_index', 'title']
const apiModuleTypes = ['video', 'audio', 'document', 'iframe', 'youtube_vimeo', 'quiz', 'html', 'archive']

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON
type Json = any

async function makeCourse(t: TestTenant, body: Record<string, unknown> = {}): Promise<Json> {
  const reply = await t.api.post('/api/v1/courses', { title: `Course ${randomUUID()}`, ...body })
  expect(reply.status).toBe(201)
  return reply.body.data
}

async function makeModule(
  t: TestTenant,
  courseId: string,
  body: Record<string, unknown> = {},
): Promise<Json> {
  const reply = await t.api.post(`/api/v1/courses/${courseId}/modules`, {
    title: `Module ${randomUUID()}`,
    module_type: 'video',
    ...body,
  })
  expect(reply.status).toBe(201)
  return reply.body.data
}

/** A course created at a fixed instant (through the service), so list orders are deterministic. */
async function courseAt(
  t: TestTenant,
  at: string,
  title = `Course ${at}`,
  description: string | null = null,
) {
  return createCourseInStore(t.tenant, { title, description }, {}, at)
}

const ids = (reply: Reply): string[] => (reply.body.data as { id: string }[]).map((c) => c.id)
const titles = (reply: Reply): string[] => (reply.body.data as { title: string }[]).map((c) => c.title)

function expectError(reply: Reply, status: number) {
  expect(reply.status).toBe(status)
  expect(reply.body).toMatchObject({ data: null, meta: null, error: { code: status } })
  expect(typeof reply.body.error.message).toBe('string')
}

async function courseEvents(t: TestTenant) {
  return (await listOutboxEvents(t.tenant))
    .filter((e) => e.event.startsWith('course.'))
    .map((e) => ({ event: e.event, data: e.data }))
}

describe('Route: POST /api/v1/courses', () => {
  it('creates a draft with an initial version and returns 201 with the full resource', async () => {
    // Prepare
    const t = await newTenant()

    // Act
    const reply = await t.api.post('/api/v1/courses', {
      title: 'Forklift Safety',
      description: '# Forklifts\nOperate them safely.',
      estimated_minutes: 45,
    })

    // Assess
    expect(reply.status).toBe(201)
    expect(reply.body.error).toBeNull()
    expect(reply.body.meta).toBeNull()
    const c = reply.body.data
    expect(Object.keys(c).sort()).toEqual(resourceFields)
    expect(c).toMatchObject({
      title: 'Forklift Safety',
      description: '# Forklifts\nOperate them safely.',
      short_description: '',
      status: 'draft',
      category_id: null,
      estimated_minutes: 45,
      published_at: null,
      enrollment_count: 0,
    })
    expect(c.id).toMatch(UUID)
    expect(c.current_version_id).toMatch(UUID)
    expect(c.current_version_id).not.toBe(c.id)
    expect(c.created_at).toMatch(ISO_UTC)
    expect(c.updated_at).toBe(c.created_at)
  })

  it('accepts a title alone, with description null and an integer estimated_minutes', async () => {
    // Prepare
    const t = await newTenant()

    // Act
    const reply = await t.api.post('/api/v1/courses', { title: 'Only a title' })

    // Assess
    expect(reply.status).toBe(201)
    expect(reply.body.data).toMatchObject({
      title: 'Only a title',
      description: null,
      short_description: '',
      status: 'draft',
      category_id: null,
    })
    expect(Number.isInteger(reply.body.data.estimated_minutes)).toBe(true)
  })

  it('accepts a short_description of exactly 500 characters', async () => {
    // Prepare
    const t = await newTenant()

    // Act
    const reply = await t.api.post('/api/v1/courses', { title: 'Long', short_description: 'x'.repeat(500) })

    // Assess
    expect(reply.status).toBe(201)
    expect(reply.body.data.short_description).toHaveLength(500)
  })

  it.each([
    ['title', { title: undefined }],
    ['title', { title: '' }],
    ['title', { title: 42 }],
    ['short_description', { short_description: 'x'.repeat(501) }],
    ['estimated_minutes', { estimated_minutes: 1.5 }],
    ['estimated_minutes', { estimated_minutes: '30' }],
  ])('answers 400 naming %s for %j, and writes nothing', async (field, override) => {
    // Prepare
    const t = await newTenant()

    // Act
    const reply = await t.api.post('/api/v1/courses', { title: 'A course', ...override })

    // Assess
    expectError(reply, 400)
    expect(reply.body.error.message).toContain(field)
    expect((await t.api.get('/api/v1/courses')).body.meta.total).toBe(0)
  })

  it('answers 400 for malformed JSON without writing anything', async () => {
    // Prepare
    const t = await newTenant()

    // Act
    const reply = await t.api.post('/api/v1/courses', undefined, { rawBody: '{"title": ' })

    // Assess
    expect(reply.status).toBe(400)
    expect(reply.body).toEqual({
      data: null,
      meta: null,
      error: { code: 400, message: 'body: must be valid JSON' },
    })
    expect((await t.api.get('/api/v1/courses')).body.meta.total).toBe(0)
  })

  it('needs the write scope: a read+write key creates, a read key gets 403', async () => {
    // Prepare
    const t = await newTenant()
    const writer = client(t.slug, await t.key(['read', 'write']))
    const reader = client(t.slug, await t.key(['read']))

    // Act
    const written = await writer.post('/api/v1/courses', { title: 'By a writer' })
    const refused = await reader.post('/api/v1/courses', { title: 'By a reader' })

    // Assess
    expect(written.status).toBe(201)
    expectError(refused, 403)
    expect(refused.body.error.message).toMatch(/write/)
  })
})

describe('Route: GET /api/v1/courses/{id}', () => {
  it('returns the course as created', async () => {
    // Prepare
    const t = await newTenant()
    const created = await makeCourse(t, {
      description: 'About',
      short_description: 'Short',
      estimated_minutes: 5,
    })

    // Act
    const reply = await t.api.get(`/api/v1/courses/${created.id}`)

    // Assess
    expect(reply.status).toBe(200)
    expect(reply.body.meta).toBeNull()
    expect(reply.body.error).toBeNull()
    expect(reply.body.data).toEqual(created)
  })

  it('answers 404 for an unknown id, a non-UUID id and another tenant’s course', async () => {
    // Prepare
    const t = await newTenant()
    const other = await newTenant()
    const theirs = await makeCourse(other)

    // Act
    const unknown = await t.api.get(`/api/v1/courses/${randomUUID()}`)
    const notUuid = await t.api.get('/api/v1/courses/not-a-uuid')
    const crossTenant = await t.api.get(`/api/v1/courses/${theirs.id}`)

    // Assess
    for (const reply of [unknown, notUuid, crossTenant]) expectError(reply, 404)
    expect((await other.api.get(`/api/v1/courses/${theirs.id}`)).status).toBe(200)
  })
})

describe('Route: GET /api/v1/courses', () => {
  it('lists newest first, without archived courses, with list fields only and meta', async () => {
    // Prepare
    const t = await newTenant()
    const a = await courseAt(t, '2025-01-01T00:00:00.000Z')
    const b = await courseAt(t, '2025-02-01T00:00:00.000Z')
    const c = await courseAt(t, '2025-03-01T00:00:00.000Z')
    const gone = await courseAt(t, '2025-04-01T00:00:00.000Z')
    expect((await t.api.delete(`/api/v1/courses/${gone.id}`)).status).toBe(204)

    // Act
    const reply = await t.api.get('/api/v1/courses')

    // Assess
    expect(reply.status).toBe(200)
    expect(reply.body.error).toBeNull()
    expect(reply.body.meta).toEqual({ page: 1, per_page: 50, total: 3 })
    expect(ids(reply)).toEqual([c.id, b.id, a.id])
    for (const item of reply.body.data) {
      expect(Object.keys(item).sort()).toEqual(listFields)
      expect(item).not.toHaveProperty('description')
      expect(item).not.toHaveProperty('current_version_id')
    }
  })

  it('lists a course created over HTTP before one created earlier', async () => {
    // Prepare
    const t = await newTenant()
    const first = await courseAt(t, '2025-01-01T00:00:00.000Z')
    const second = await makeCourse(t)

    // Act
    const reply = await t.api.get('/api/v1/courses')

    // Assess
    expect(ids(reply)).toEqual([second.id, first.id])
  })

  it('filters by status: archived shows the archived courses, draft and published their own', async () => {
    // Prepare
    const t = await newTenant()
    const draft = await makeCourse(t)
    const published = await makeCourse(t)
    const archived = await makeCourse(t)
    expect((await t.api.patch(`/api/v1/courses/${published.id}`, { status: 'published' })).status).toBe(200)
    expect((await t.api.patch(`/api/v1/courses/${archived.id}`, { status: 'archived' })).status).toBe(200)

    // Act
    const onlyArchived = await t.api.get('/api/v1/courses?status=archived')
    const onlyDraft = await t.api.get('/api/v1/courses?status=draft')
    const onlyPublished = await t.api.get('/api/v1/courses?status=published')
    const byDefault = await t.api.get('/api/v1/courses')

    // Assess
    expect(ids(onlyArchived)).toEqual([archived.id])
    expect(onlyArchived.body.data[0].status).toBe('archived')
    expect(onlyArchived.body.meta.total).toBe(1)
    expect(ids(onlyDraft)).toEqual([draft.id])
    expect(onlyDraft.body.meta.total).toBe(1)
    expect(ids(onlyPublished)).toEqual([published.id])
    expect(onlyPublished.body.meta.total).toBe(1)
    expect(ids(byDefault).sort()).toEqual([draft.id, published.id].sort())
    expect(byDefault.body.meta.total).toBe(2)
  })

  it('answers 400 naming the parameter for an invalid status, sort_by, sort_order, created_after or page', async () => {
    // Prepare
    const t = await newTenant()
    await makeCourse(t)

    // Act
    const cases: [string, string][] = [
      ['status=deleted', 'status'],
      ['sort_by=enrollment_count', 'sort_by'],
      ['sort_by=published_at', 'sort_by'],
      ['sort_order=up', 'sort_order'],
      ['created_after=yesterday', 'created_after'],
      ['created_after=2025-01-01T00:00:00', 'created_after'],
      ['page=abc', 'page'],
    ]
    const replies = await Promise.all(cases.map(([q]) => t.api.get(`/api/v1/courses?${q}`)))

    // Assess
    replies.forEach((reply, i) => {
      const [query, field] = cases[i] ?? ['', '']
      expect(reply.status, query).toBe(400)
      expect(reply.body.error.message, query).toContain(field)
    })
  })

  it('sorts by title case-insensitively in both orders', async () => {
    // Prepare
    const t = await newTenant()
    await makeCourse(t, { title: 'banana' })
    await makeCourse(t, { title: 'Cherry' })
    await makeCourse(t, { title: 'apple' })
    await makeCourse(t, { title: 'Date' })

    // Act
    const asc = await t.api.get('/api/v1/courses?sort_by=title&sort_order=asc')
    const desc = await t.api.get('/api/v1/courses?sort_by=title&sort_order=desc')
    const descByDefault = await t.api.get('/api/v1/courses?sort_by=title')

    // Assess
    expect(titles(asc)).toEqual(['apple', 'banana', 'Cherry', 'Date'])
    expect(titles(desc)).toEqual(['Date', 'Cherry', 'banana', 'apple'])
    expect(titles(descByDefault)).toEqual(['Date', 'Cherry', 'banana', 'apple'])
  })

  it('sorts by updated_at, so a patched course moves, and by created_at ascending', async () => {
    // Prepare
    const t = await newTenant()
    const a = await courseAt(t, '2025-01-01T00:00:00.000Z', 'A')
    const b = await courseAt(t, '2025-02-01T00:00:00.000Z', 'B')
    const c = await courseAt(t, '2025-03-01T00:00:00.000Z', 'C')
    expect((await t.api.patch(`/api/v1/courses/${a.id}`, { title: 'A2' })).status).toBe(200)

    // Act
    const updatedDesc = await t.api.get('/api/v1/courses?sort_by=updated_at')
    const updatedAsc = await t.api.get('/api/v1/courses?sort_by=updated_at&sort_order=asc')
    const createdAsc = await t.api.get('/api/v1/courses?sort_by=created_at&sort_order=asc')

    // Assess
    expect(ids(updatedDesc)).toEqual([a.id, c.id, b.id])
    expect(ids(updatedAsc)).toEqual([b.id, c.id, a.id])
    expect(ids(createdAsc)).toEqual([a.id, b.id, c.id])
  })

  it('filters by exact category name; a name differing only in case or unknown matches nothing', async () => {
    // Prepare
    const t = await newTenant()
    const safety = await makeCourse(t, { title: 'Safety one' })
    const safety2 = await makeCourse(t, { title: 'Safety two' })
    const compliance = await makeCourse(t, { title: 'Compliance one' })
    await makeCourse(t, { title: 'No category' })
    await configureCourse(t.tenant, safety.id, { category: 'Safety' })
    await configureCourse(t.tenant, safety2.id, { category: 'Safety' })
    await configureCourse(t.tenant, compliance.id, { category: 'Compliance' })

    // Act
    const exact = await t.api.get('/api/v1/courses?category=Safety')
    const otherCase = await t.api.get('/api/v1/courses?category=safety')
    const unknown = await t.api.get('/api/v1/courses?category=Nope')
    const other = await t.api.get('/api/v1/courses?category=Compliance')

    // Assess
    expect(exact.status).toBe(200)
    expect(ids(exact).sort()).toEqual([safety.id, safety2.id].sort())
    expect(exact.body.meta.total).toBe(2)
    const categoryIds = new Set(exact.body.data.map((c: { category_id: string }) => c.category_id))
    expect(categoryIds.size).toBe(1)
    expect([...categoryIds][0]).toMatch(UUID)
    expect(otherCase.status).toBe(200)
    expect(otherCase.body.data).toEqual([])
    expect(otherCase.body.meta.total).toBe(0)
    expect(unknown.body.data).toEqual([])
    expect(unknown.body.meta.total).toBe(0)
    expect(ids(other)).toEqual([compliance.id])
  })

  it('searches title and description case-insensitively', async () => {
    // Prepare
    const t = await newTenant()
    const forklift = await courseAt(t, '2025-01-01T00:00:00.000Z', 'Forklift SAFETY', 'Warehouse basics')
    const hazmat = await courseAt(
      t,
      '2025-02-01T00:00:00.000Z',
      'Chemicals',
      'Handling HazMat and safety gear',
    )
    await courseAt(t, '2025-03-01T00:00:00.000Z', 'Excel', 'Spreadsheets')

    // Act
    const inTitle = await t.api.get('/api/v1/courses?search=forklift')
    const inDescription = await t.api.get('/api/v1/courses?search=hazmat')
    const inBoth = await t.api.get('/api/v1/courses?search=Safety')
    const none = await t.api.get('/api/v1/courses?search=kubernetes')

    // Assess
    expect(ids(inTitle)).toEqual([forklift.id])
    expect(inTitle.body.meta.total).toBe(1)
    expect(ids(inDescription)).toEqual([hazmat.id])
    expect(ids(inBoth)).toEqual([hazmat.id, forklift.id])
    expect(inBoth.body.meta.total).toBe(2)
    expect(none.body.data).toEqual([])
    expect(none.body.meta.total).toBe(0)
  })

  it('filters by created_after (strictly after), in UTC or with an offset', async () => {
    // Prepare
    const t = await newTenant()
    await courseAt(t, '2024-01-01T00:00:00.000Z')
    const june = await courseAt(t, '2024-06-01T00:00:00.000Z')
    const jan = await courseAt(t, '2025-01-01T00:00:00.000Z')

    // Act
    const afterMarch = await t.api.get('/api/v1/courses?created_after=2024-03-01T00:00:00Z')
    const atJune = await t.api.get('/api/v1/courses?created_after=2024-06-01T00:00:00.000Z')
    // 2024-06-01T02:00:00+03:00 is 2024-05-31T23:00:00Z: the June course is after it.
    const withOffset = await t.api.get(
      `/api/v1/courses?created_after=${encodeURIComponent('2024-06-01T02:00:00+03:00')}`,
    )

    // Assess
    expect(ids(afterMarch)).toEqual([jan.id, june.id])
    expect(afterMarch.body.meta.total).toBe(2)
    expect(ids(atJune)).toEqual([jan.id])
    expect(ids(withOffset)).toEqual([jan.id, june.id])
    expect(withOffset.body.meta.total).toBe(2)
  })

  it('pages, clamps page and per_page, ignores unknown parameters and returns [] past the end', async () => {
    // Prepare
    const t = await newTenant()
    const a = await courseAt(t, '2025-01-01T00:00:00.000Z')
    const b = await courseAt(t, '2025-02-01T00:00:00.000Z')
    const c = await courseAt(t, '2025-03-01T00:00:00.000Z')

    // Act
    const first = await t.api.get('/api/v1/courses?per_page=2')
    const second = await t.api.get('/api/v1/courses?per_page=2&page=2')
    const clamped = await t.api.get('/api/v1/courses?per_page=500&page=0&cursor=abc&fields=id&colour=blue')
    const pastEnd = await t.api.get('/api/v1/courses?per_page=2&page=5')

    // Assess
    expect(first.body.meta).toEqual({ page: 1, per_page: 2, total: 3 })
    expect(ids(first)).toEqual([c.id, b.id])
    expect(second.body.meta).toEqual({ page: 2, per_page: 2, total: 3 })
    expect(ids(second)).toEqual([a.id])
    expect(clamped.status).toBe(200)
    expect(clamped.body.meta).toEqual({ page: 1, per_page: 200, total: 3 })
    expect(ids(clamped)).toEqual([c.id, b.id, a.id])
    expect(Object.keys(clamped.body.data[0]).sort()).toEqual(listFields)
    expect(pastEnd.status).toBe(200)
    expect(pastEnd.body.data).toEqual([])
    expect(pastEnd.body.meta).toEqual({ page: 5, per_page: 2, total: 3 })
  })

  it('lists only the tenant’s own courses', async () => {
    // Prepare
    const t = await newTenant()
    const other = await newTenant()
    const mine = await makeCourse(t)
    await makeCourse(other)

    // Act
    const reply = await t.api.get('/api/v1/courses')

    // Assess
    expect(ids(reply)).toEqual([mine.id])
    expect(reply.body.meta.total).toBe(1)
  })
})

describe('Route: PATCH /api/v1/courses/{id}', () => {
  it('changes only the fields sent and returns the course', async () => {
    // Prepare
    const t = await newTenant()
    // Created at a past instant, so the PATCH's update time is later than the one it replaces.
    const { id } = await createCourseInStore(
      t.tenant,
      { title: 'Before', description: 'Kept', short_description: 'Kept too', estimated_minutes: 10 },
      {},
      '2025-01-01T00:00:00.000Z',
    )
    const created = (await t.api.get(`/api/v1/courses/${id}`)).body.data

    // Act
    const reply = await t.api.patch(`/api/v1/courses/${created.id}`, { title: 'After' })

    // Assess
    expect(reply.status).toBe(200)
    expect(reply.body.meta).toBeNull()
    expect(reply.body.data).toMatchObject({
      id: created.id,
      title: 'After',
      description: 'Kept',
      short_description: 'Kept too',
      estimated_minutes: 10,
      status: 'draft',
      category_id: null,
      current_version_id: created.current_version_id,
      created_at: created.created_at,
      published_at: null,
    })
    expect(Object.keys(reply.body.data).sort()).toEqual(resourceFields)
    expect(Date.parse(reply.body.data.updated_at)).toBeGreaterThan(Date.parse(created.updated_at))
    expect((await t.api.get(`/api/v1/courses/${created.id}`)).body.data).toEqual(reply.body.data)
  })

  it('sets description to null and changes short_description', async () => {
    // Prepare
    const t = await newTenant()
    const created = await makeCourse(t, { description: 'Something' })

    // Act
    const reply = await t.api.patch(`/api/v1/courses/${created.id}`, {
      description: null,
      short_description: 'New short',
    })

    // Assess
    expect(reply.status).toBe(200)
    expect(reply.body.data).toMatchObject({
      description: null,
      short_description: 'New short',
      title: created.title,
    })
  })

  it('answers 400 when no updatable field is sent, and changes nothing', async () => {
    // Prepare
    const t = await newTenant()
    const created = await makeCourse(t)

    // Act
    const empty = await t.api.patch(`/api/v1/courses/${created.id}`, {})
    const unknownOnly = await t.api.patch(`/api/v1/courses/${created.id}`, { foo: 1 })

    // Assess
    expectError(empty, 400)
    expectError(unknownOnly, 400)
    expect((await t.api.get(`/api/v1/courses/${created.id}`)).body.data).toEqual(created)
  })

  it.each([
    ['status', { status: 'deleted' }],
    ['title', { title: '' }],
    ['short_description', { short_description: 'x'.repeat(501) }],
    ['estimated_minutes', { estimated_minutes: 2.5 }],
  ])('answers 400 naming %s for %j', async (field, body) => {
    // Prepare
    const t = await newTenant()
    const created = await makeCourse(t)

    // Act
    const reply = await t.api.patch(`/api/v1/courses/${created.id}`, body)

    // Assess
    expectError(reply, 400)
    expect(reply.body.error.message).toContain(field)
    expect((await t.api.get(`/api/v1/courses/${created.id}`)).body.data).toEqual(created)
  })

  it('answers 400 for malformed JSON', async () => {
    // Prepare
    const t = await newTenant()
    const created = await makeCourse(t)

    // Act
    const reply = await t.api.patch(`/api/v1/courses/${created.id}`, undefined, { rawBody: '{"title": ' })

    // Assess
    expectError(reply, 400)
  })

  it('answers 404 for an unknown, non-UUID or other tenant’s course', async () => {
    // Prepare
    const t = await newTenant()
    const other = await newTenant()
    const theirs = await makeCourse(other)

    // Act
    const unknown = await t.api.patch(`/api/v1/courses/${randomUUID()}`, { title: 'x' })
    const notUuid = await t.api.patch('/api/v1/courses/nope', { title: 'x' })
    const crossTenant = await t.api.patch(`/api/v1/courses/${theirs.id}`, { title: 'x' })

    // Assess
    for (const reply of [unknown, notUuid, crossTenant]) expectError(reply, 404)
    expect((await other.api.get(`/api/v1/courses/${theirs.id}`)).body.data.title).toBe(theirs.title)
  })

  it('publishes: sets published_at and writes course.published with the course id and title', async () => {
    // Prepare
    const t = await newTenant()
    const created = await makeCourse(t, { title: 'To publish' })

    // Act
    const reply = await t.api.patch(`/api/v1/courses/${created.id}`, { status: 'published' })

    // Assess
    expect(reply.status).toBe(200)
    expect(reply.body.data.status).toBe('published')
    expect(reply.body.data.published_at).toMatch(ISO_UTC)
    expect((await t.api.get(`/api/v1/courses/${created.id}`)).body.data.status).toBe('published')
    expect(await courseEvents(t)).toEqual([
      { event: 'course.published', data: { courseId: created.id, title: 'To publish' } },
    ])
  })

  it('carries the new title in course.published when title and status change together', async () => {
    // Prepare
    const t = await newTenant()
    const created = await makeCourse(t, { title: 'Old title' })

    // Act
    const reply = await t.api.patch(`/api/v1/courses/${created.id}`, {
      title: 'New title',
      status: 'published',
    })

    // Assess
    expect(reply.status).toBe(200)
    expect(reply.body.data).toMatchObject({ title: 'New title', status: 'published' })
    expect(await courseEvents(t)).toEqual([
      { event: 'course.published', data: { courseId: created.id, title: 'New title' } },
    ])
  })

  it('goes published → draft → published, with one course.published per publish', async () => {
    // Prepare
    const t = await newTenant()
    const created = await makeCourse(t)
    const path = `/api/v1/courses/${created.id}`

    // Act
    const published = await t.api.patch(path, { status: 'published' })
    const unpublished = await t.api.patch(path, { status: 'draft' })
    const republished = await t.api.patch(path, { status: 'published' })

    // Assess
    expect(published.status).toBe(200)
    expect(unpublished.status).toBe(200)
    expect(unpublished.body.data.status).toBe('draft')
    expect(republished.status).toBe(200)
    expect(republished.body.data.status).toBe('published')
    expect(republished.body.data.published_at).toMatch(ISO_UTC)
    const events = await courseEvents(t)
    expect(events.map((e) => e.event)).toEqual(['course.published', 'course.published'])
  })

  it('re-publishing a published course keeps it published and writes no second event', async () => {
    // Prepare
    const t = await newTenant()
    const created = await makeCourse(t)
    const path = `/api/v1/courses/${created.id}`
    expect((await t.api.patch(path, { status: 'published' })).status).toBe(200)

    // Act
    const again = await t.api.patch(path, { status: 'published' })

    // Assess
    expect(again.status).toBe(200)
    expect(again.body.data.status).toBe('published')
    expect((await courseEvents(t)).map((e) => e.event)).toEqual(['course.published'])
  })

  it('archives a draft or a published course and writes course.archived', async () => {
    // Prepare
    const t = await newTenant()
    const draft = await makeCourse(t)
    const published = await makeCourse(t)
    expect((await t.api.patch(`/api/v1/courses/${published.id}`, { status: 'published' })).status).toBe(200)

    // Act
    const a = await t.api.patch(`/api/v1/courses/${draft.id}`, { status: 'archived' })
    const b = await t.api.patch(`/api/v1/courses/${published.id}`, { status: 'archived' })

    // Assess
    expect(a.status).toBe(200)
    expect(a.body.data.status).toBe('archived')
    expect(b.status).toBe(200)
    expect(b.body.data.status).toBe('archived')
    const archivedEvents = (await courseEvents(t)).filter((e) => e.event === 'course.archived')
    expect(archivedEvents.map((e) => e.data.courseId).sort()).toEqual([draft.id, published.id].sort())
    expect((await t.api.get('/api/v1/courses')).body.data).toEqual([])
  })

  it('answers 422 for archived → published (and archived → draft), leaving the course archived', async () => {
    // Prepare
    const t = await newTenant()
    const created = await makeCourse(t)
    const path = `/api/v1/courses/${created.id}`
    expect((await t.api.patch(path, { status: 'archived' })).status).toBe(200)

    // Act
    const toPublished = await t.api.patch(path, { status: 'published' })
    const toDraft = await t.api.patch(path, { status: 'draft' })

    // Assess
    expectError(toPublished, 422)
    expectError(toDraft, 422)
    expect((await t.api.get(path)).body.data.status).toBe('archived')
    expect((await courseEvents(t)).map((e) => e.event)).toEqual(['course.archived'])
  })

  it('answers 422 when publishing a course that has no version, and writes no event', async () => {
    // Prepare
    const t = await newTenant()
    const shell = await createCourseInStore(t.tenant, { title: 'Imported shell' }, { withVersion: false })

    // Act
    const reply = await t.api.patch(`/api/v1/courses/${shell.id}`, { status: 'published' })

    // Assess
    expectError(reply, 422)
    expect((await t.api.get(`/api/v1/courses/${shell.id}`)).body.data.status).toBe('draft')
    expect(await courseEvents(t)).toEqual([])
  })

  it('never caps publishing on a paid plan', async () => {
    // Prepare
    const t = await newTenant('growth')
    const courses = await Promise.all(Array.from({ length: 5 }, () => makeCourse(t)))

    // Act
    const replies = []
    for (const c of courses)
      replies.push(await t.api.patch(`/api/v1/courses/${c.id}`, { status: 'published' }))

    // Assess
    expect(replies.map((r) => r.status)).toEqual([200, 200, 200, 200, 200])
  })
})

describe('Route: PATCH /api/v1/courses/{id} (free plan course cap, through the service)', () => {
  async function freeDrafts(n: number) {
    const t = await newTenant('free')
    const courses = []
    for (let i = 0; i < n; i++) courses.push(await createCourseInStore(t.tenant, { title: `Free ${i}` }))
    return { t, courses }
  }

  it('publishes 3 courses, refuses the 4th with EntitlementError course_cap, mapped to 422', async () => {
    // Prepare
    const { t, courses } = await freeDrafts(4)
    const [c1, c2, c3, c4] = courses.map((c) => c.id) as [string, string, string, string]

    // Act
    for (const id of [c1, c2, c3]) {
      expect((await updateCourse(t.tenant, id, { status: 'published' })).status).toBe('published')
    }
    const fourth = await updateCourse(t.tenant, c4, { status: 'published' }).then(
      () => undefined,
      (err: unknown) => err,
    )

    // Assess
    expect(fourth).toBeInstanceOf(EntitlementError)
    expect(fourth).toMatchObject({
      kind: 'cap',
      flagOrLimit: 'course_cap',
      currentTier: 'free',
      requiredTier: 'starter',
    })
    const { result } = toErrorResult(fourth)
    expect(result.statusCode).toBe(422)
    expect(JSON.parse(result.body ?? '{}')).toMatchObject({
      data: null,
      meta: null,
      error: {
        code: 422,
        entitlement_blocked: {
          code: 'ENTITLEMENT_BLOCKED',
          flag_or_limit: 'course_cap',
          current_tier: 'free',
          required_tier: 'starter',
        },
      },
    })
    expect((await getCourseInStore(t.tenant, c4)).status).toBe('draft')
    expect((await getCourseInStore(t.tenant, c4)).publishedAt).toBeNull()
    const published = (await courseEvents(t)).filter((e) => e.event === 'course.published')
    expect(published.map((e) => e.data.courseId).sort()).toEqual([c1, c2, c3].sort())
  })

  it('lets a published course be re-published when the cap is reached', async () => {
    // Prepare
    const { t, courses } = await freeDrafts(3)
    for (const c of courses) await updateCourse(t.tenant, c.id, { status: 'published' })
    const first = courses[0]?.id ?? ''

    // Act
    const again = await updateCourse(t.tenant, first, { status: 'published' })
    const withTitle = await updateCourse(t.tenant, first, { status: 'published', title: 'Renamed' })

    // Assess
    expect(again.status).toBe('published')
    expect(withTitle).toMatchObject({ status: 'published', title: 'Renamed' })
  })

  it('frees a slot when a published course is unpublished or archived', async () => {
    // Prepare
    const { t, courses } = await freeDrafts(5)
    const [c1, c2, c3, c4, c5] = courses.map((c) => c.id) as [string, string, string, string, string]
    for (const id of [c1, c2, c3]) await updateCourse(t.tenant, id, { status: 'published' })
    await expect(updateCourse(t.tenant, c4, { status: 'published' })).rejects.toBeInstanceOf(EntitlementError)

    // Act
    await updateCourse(t.tenant, c1, { status: 'draft' })
    const afterUnpublish = await updateCourse(t.tenant, c4, { status: 'published' })
    await updateCourse(t.tenant, c2, { status: 'archived' })
    const afterArchive = await updateCourse(t.tenant, c5, { status: 'published' })

    // Assess
    expect(afterUnpublish.status).toBe('published')
    expect(afterArchive.status).toBe('published')
    await expect(updateCourse(t.tenant, c1, { status: 'published' })).rejects.toBeInstanceOf(EntitlementError)
  })

  it('lets exactly 3 of 8 parallel publishes of distinct drafts succeed', async () => {
    // Prepare
    const { t, courses } = await freeDrafts(8)

    // Act
    const results = await Promise.allSettled(
      courses.map((c) => updateCourse(t.tenant, c.id, { status: 'published' })),
    )

    // Assess
    const fulfilled = results.filter((r) => r.status === 'fulfilled')
    const rejected = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected')
    expect(fulfilled).toHaveLength(3)
    expect(rejected).toHaveLength(5)
    for (const r of rejected) expect(r.reason).toMatchObject({ kind: 'cap', flagOrLimit: 'course_cap' })
    const listed = await listCoursesInStore(t.tenant, {
      status: 'published',
      sortBy: 'created_at',
      order: 'desc',
      offset: 0,
      limit: 50,
    })
    expect(listed.items).toHaveLength(3)
    expect(listed.total).toBe(3)
    expect((await courseEvents(t)).filter((e) => e.event === 'course.published')).toHaveLength(3)
  })
})

describe('Route: DELETE /api/v1/courses/{id}', () => {
  it('archives the course with 204, writes course.archived, and hides it from the default list', async () => {
    // Prepare
    const t = await newTenant()
    const created = await makeCourse(t, { title: 'To archive' })
    expect((await t.api.patch(`/api/v1/courses/${created.id}`, { status: 'published' })).status).toBe(200)

    // Act
    const reply = await t.api.delete(`/api/v1/courses/${created.id}`)

    // Assess
    expect(reply.status).toBe(204)
    expect(reply.text).toBe('')
    const fetched = await t.api.get(`/api/v1/courses/${created.id}`)
    expect(fetched.status).toBe(200)
    expect(fetched.body.data.status).toBe('archived')
    expect((await t.api.get('/api/v1/courses')).body.data).toEqual([])
    expect(ids(await t.api.get('/api/v1/courses?status=archived'))).toEqual([created.id])
    const archived = (await courseEvents(t)).filter((e) => e.event === 'course.archived')
    expect(archived).toHaveLength(1)
    expect(archived[0]?.data).toMatchObject({ courseId: created.id })
  })

  it('is idempotent: a second DELETE is 204 and writes no second event', async () => {
    // Prepare
    const t = await newTenant()
    const created = await makeCourse(t)
    expect((await t.api.delete(`/api/v1/courses/${created.id}`)).status).toBe(204)

    // Act
    const again = await t.api.delete(`/api/v1/courses/${created.id}`)

    // Assess
    expect(again.status).toBe(204)
    expect((await courseEvents(t)).map((e) => e.event)).toEqual(['course.archived'])
  })

  it('needs the admin scope: a read+write key gets 403 and the course is untouched', async () => {
    // Prepare
    const t = await newTenant()
    const created = await makeCourse(t)
    const writer = client(t.slug, await t.key(['read', 'write']))

    // Act
    const reply = await writer.delete(`/api/v1/courses/${created.id}`)

    // Assess
    expectError(reply, 403)
    expect(reply.body.error.message).toMatch(/admin/)
    expect((await t.api.get(`/api/v1/courses/${created.id}`)).body.data.status).toBe('draft')
    expect(await courseEvents(t)).toEqual([])
  })

  it('answers 404 for an unknown, non-UUID or other tenant’s course', async () => {
    // Prepare
    const t = await newTenant()
    const other = await newTenant()
    const theirs = await makeCourse(other)

    // Act
    const unknown = await t.api.delete(`/api/v1/courses/${randomUUID()}`)
    const notUuid = await t.api.delete('/api/v1/courses/xyz')
    const crossTenant = await t.api.delete(`/api/v1/courses/${theirs.id}`)

    // Assess
    for (const reply of [unknown, notUuid, crossTenant]) expectError(reply, 404)
    expect((await other.api.get(`/api/v1/courses/${theirs.id}`)).body.data.status).toBe('draft')
  })
})

describe('Route: POST /api/v1/courses/{id}/modules', () => {
  it('appends modules with zero-based order_index and returns 201 with the module', async () => {
    // Prepare
    const t = await newTenant()
    const course = await makeCourse(t)

    // Act
    const first = await t.api.post(`/api/v1/courses/${course.id}/modules`, {
      title: 'Intro',
      module_type: 'video',
    })
    const second = await t.api.post(`/api/v1/courses/${course.id}/modules`, {
      title: 'Reading',
      module_type: 'document',
      description: 'Read this',
    })
    const third = await t.api.post(`/api/v1/courses/${course.id}/modules`, {
      title: 'Check',
      module_type: 'quiz',
      is_required: false,
    })

    // Assess
    for (const reply of [first, second, third]) {
      expect(reply.status).toBe(201)
      expect(reply.body.meta).toBeNull()
      expect(reply.body.error).toBeNull()
      expect(Object.keys(reply.body.data).sort()).toEqual(moduleFields)
      expect(reply.body.data.id).toMatch(UUID)
      expect(reply.body.data.created_at).toMatch(ISO_UTC)
    }
    expect(first.body.data).toMatchObject({
      title: 'Intro',
      module_type: 'video',
      description: null,
      is_required: true,
      order_index: 0,
    })
    expect(second.body.data).toMatchObject({
      title: 'Reading',
      module_type: 'document',
      description: 'Read this',
      is_required: true,
      order_index: 1,
    })
    expect(third.body.data).toMatchObject({
      title: 'Check',
      module_type: 'quiz',
      is_required: false,
      order_index: 2,
    })
  })

  it('accepts every module_type of the API vocabulary', async () => {
    // Prepare
    const t = await newTenant()
    const course = await makeCourse(t)

    // Act
    const replies = []
    for (const module_type of apiModuleTypes) {
      replies.push(
        await t.api.post(`/api/v1/courses/${course.id}/modules`, { title: module_type, module_type }),
      )
    }

    // Assess
    expect(replies.map((r) => r.status)).toEqual(apiModuleTypes.map(() => 201))
    expect(replies.map((r) => r.body.data.module_type)).toEqual(apiModuleTypes)
    expect(replies.map((r) => r.body.data.order_index)).toEqual(apiModuleTypes.map((_, i) => i))
  })

  it.each([
    ['module_type', { module_type: 'scorm' }],
    ['module_type', { module_type: 'cmi5' }],
    ['module_type', { module_type: 'aicc' }],
    ['module_type', { module_type: 'podcast' }],
    ['module_type', { module_type: undefined }],
    ['title', { title: undefined }],
    ['title', { title: '   ' }],
    ['description', { description: 'x'.repeat(2001) }],
    ['is_required', { is_required: 'yes' }],
  ])('answers 400 naming %s for %j, and adds nothing', async (field, override) => {
    // Prepare
    const t = await newTenant()
    const course = await makeCourse(t)

    // Act
    const reply = await t.api.post(`/api/v1/courses/${course.id}/modules`, {
      title: 'M',
      module_type: 'video',
      ...override,
    })

    // Assess
    expectError(reply, 400)
    expect(reply.body.error.message).toContain(field)
    expect((await t.api.get(`/api/v1/courses/${course.id}/modules`)).body.data).toEqual([])
  })

  it('accepts a description of exactly 2,000 characters', async () => {
    // Prepare
    const t = await newTenant()
    const course = await makeCourse(t)

    // Act
    const reply = await t.api.post(`/api/v1/courses/${course.id}/modules`, {
      title: 'Long',
      module_type: 'html',
      description: 'd'.repeat(2000),
    })

    // Assess
    expect(reply.status).toBe(201)
    expect(reply.body.data.description).toHaveLength(2000)
  })

  it('answers 400 for malformed JSON', async () => {
    // Prepare
    const t = await newTenant()
    const course = await makeCourse(t)

    // Act
    const reply = await t.api.post(`/api/v1/courses/${course.id}/modules`, undefined, { rawBody: '{"title"' })

    // Assess
    expectError(reply, 400)
  })

  it('answers 404 for an unknown, non-UUID or other tenant’s course', async () => {
    // Prepare
    const t = await newTenant()
    const other = await newTenant()
    const theirs = await makeCourse(other)
    const body = { title: 'M', module_type: 'video' }

    // Act
    const unknown = await t.api.post(`/api/v1/courses/${randomUUID()}/modules`, body)
    const notUuid = await t.api.post('/api/v1/courses/abc/modules', body)
    const crossTenant = await t.api.post(`/api/v1/courses/${theirs.id}/modules`, body)

    // Assess
    for (const reply of [unknown, notUuid, crossTenant]) expectError(reply, 404)
    expect((await other.api.get(`/api/v1/courses/${theirs.id}/modules`)).body.data).toEqual([])
  })

  it('answers 422 when the course is archived, and adds nothing', async () => {
    // Prepare
    const t = await newTenant()
    const course = await makeCourse(t)
    await makeModule(t, course.id)
    expect((await t.api.delete(`/api/v1/courses/${course.id}`)).status).toBe(204)

    // Act
    const reply = await t.api.post(`/api/v1/courses/${course.id}/modules`, {
      title: 'Late',
      module_type: 'video',
    })

    // Assess
    expectError(reply, 422)
    expect((await t.api.get(`/api/v1/courses/${course.id}/modules`)).body.data).toHaveLength(1)
  })

  it('gives 12 parallel adds the order_index 0..11, each once', async () => {
    // Prepare
    const t = await newTenant()
    const course = await makeCourse(t)

    // Act
    const replies = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        t.api.post(`/api/v1/courses/${course.id}/modules`, { title: `Parallel ${i}`, module_type: 'video' }),
      ),
    )

    // Assess
    expect(replies.map((r) => r.status)).toEqual(replies.map(() => 201))
    const indexes = replies.map((r) => r.body?.data?.order_index as number).sort((a, b) => a - b)
    expect(indexes).toEqual(Array.from({ length: 12 }, (_, i) => i))
    const listed = await t.api.get(`/api/v1/courses/${course.id}/modules`)
    expect(listed.body.data.map((m: { order_index: number }) => m.order_index)).toEqual(
      Array.from({ length: 12 }, (_, i) => i),
    )
  })
})

describe('Route: GET /api/v1/courses/{id}/modules', () => {
  it('returns the modules in display order with meta null', async () => {
    // Prepare
    const t = await newTenant()
    const course = await makeCourse(t)
    const created = []
    for (let i = 0; i < 11; i++) created.push(await makeModule(t, course.id, { title: `M${i}` }))

    // Act
    const reply = await t.api.get(`/api/v1/courses/${course.id}/modules`)

    // Assess
    expect(reply.status).toBe(200)
    expect(reply.body.meta).toBeNull()
    expect(reply.body.error).toBeNull()
    expect(reply.body.data).toEqual(created)
    expect(reply.body.data.map((m: { order_index: number }) => m.order_index)).toEqual(
      Array.from({ length: 11 }, (_, i) => i),
    )
  })

  it('returns [] for a course without modules and keeps courses apart', async () => {
    // Prepare
    const t = await newTenant()
    const empty = await makeCourse(t)
    const other = await makeCourse(t)
    await makeModule(t, other.id)

    // Act
    const reply = await t.api.get(`/api/v1/courses/${empty.id}/modules`)

    // Assess
    expect(reply.status).toBe(200)
    expect(reply.body).toEqual({ data: [], meta: null, error: null })
  })

  it('answers 404 for an unknown, non-UUID or other tenant’s course', async () => {
    // Prepare
    const t = await newTenant()
    const other = await newTenant()
    const theirs = await makeCourse(other)
    await makeModule(other, theirs.id)

    // Act
    const unknown = await t.api.get(`/api/v1/courses/${randomUUID()}/modules`)
    const notUuid = await t.api.get('/api/v1/courses/abc/modules')
    const crossTenant = await t.api.get(`/api/v1/courses/${theirs.id}/modules`)

    // Assess
    for (const reply of [unknown, notUuid, crossTenant]) expectError(reply, 404)
  })
})

describe('CLI: lms course configure', () => {
  it('sets the category and settings and prints them', async () => {
    // Prepare
    const t = await newTenant()
    const course = await makeCourse(t)

    // Act
    const out = await lms(
      'course',
      'configure',
      '--tenant',
      t.slug,
      '--course',
      course.id,
      '--category',
      'Safety',
      '--seat-limit',
      '5',
      '--waitlist',
      'on',
      '--requires-approval',
      'on',
      '--ceu',
      '1.5',
      '--certificate-validity-days',
      '365',
      '--language',
      'fr',
    )

    // Assess
    expect(out.code).toBe(0)
    expect(out.json).toMatchObject({
      course_id: course.id,
      category: 'Safety',
      seat_limit: 5,
      waitlist: true,
      requires_approval: true,
      ceu: 1.5,
      certificate_validity_days: 365,
      language: 'fr',
    })
    expect(out.json.category_id).toMatch(UUID)
    const fetched = await t.api.get(`/api/v1/courses/${course.id}`)
    expect(fetched.body.data.category_id).toBe(out.json.category_id)
    expect(ids(await t.api.get('/api/v1/courses?category=Safety'))).toEqual([course.id])
  })

  it('creates a category only once: two courses configured with the same name share its id', async () => {
    // Prepare
    const t = await newTenant()
    const a = await makeCourse(t)
    const b = await makeCourse(t)

    // Act
    const first = await lms(
      'course',
      'configure',
      '--tenant',
      t.slug,
      '--course',
      a.id,
      '--category',
      'Safety',
    )
    const second = await lms(
      'course',
      'configure',
      '--tenant',
      t.slug,
      '--course',
      b.id,
      '--category',
      'Safety',
    )
    const explicit = await lms('category', 'create', '--tenant', t.slug, '--name', 'Safety')

    // Assess
    expect(first.code).toBe(0)
    expect(second.code).toBe(0)
    const idA = (await t.api.get(`/api/v1/courses/${a.id}`)).body.data.category_id
    const idB = (await t.api.get(`/api/v1/courses/${b.id}`)).body.data.category_id
    expect(idA).toMatch(UUID)
    expect(idB).toBe(idA)
    expect(explicit.json).toMatchObject({ id: idA, name: 'Safety' })
    const listed = await t.api.get('/api/v1/courses?category=Safety')
    expect(ids(listed).sort()).toEqual([a.id, b.id].sort())
  })
})
