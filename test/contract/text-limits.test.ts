/**
 * Issue 10, item 4: every free-text field has a size limit in UTF-8 bytes that keeps its item far
 * below DynamoDB's 400 KB, and names, e-mails and titles refuse control characters. A refused
 * request answers 400 in the envelope naming the field and writes nothing.
 */
import { randomBytes, randomInt, randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { getTenantBySlug } from '../../shared/store/tenants/tenants-store.ts'
import { putCustomFieldDef } from '../../shared/store/users/users-store.ts'
import { lms } from '../helpers/cli.ts'
import { call, type Reply } from '../helpers/http.ts'
import { newTenant, userBody, type TestTenant } from '../helpers/tenants.ts'

/** Three bytes in UTF-8, one UTF-16 unit: what the attack sent. */
const HAN = '中'
const DESCRIPTION_BYTES = 64 * 1024

function expect400Naming(reply: Reply, field: string) {
  expect(reply.status).toBe(400)
  expect(reply.body).toMatchObject({ data: null, meta: null, error: { code: 400 } })
  expect(reply.body.error.message).toMatch(new RegExp(`^${field.replace(/[.[\]]/g, '\\$&')}\\b`))
  // The refusal names the field; it never echoes a huge value back.
  expect(reply.text.length).toBeLessThan(1000)
}

async function courseOf(t: TestTenant, body: Record<string, unknown> = {}) {
  const reply = await t.api.post('/api/v1/courses', { title: `Course ${randomUUID()}`, ...body })
  expect(reply.status).toBe(201)
  return reply.body.data as { id: string; description: string | null; updated_at: string }
}

const newAddress = () => `127.${randomInt(1, 255)}.${randomInt(0, 256)}.${randomInt(1, 255)}`

describe('Attack: oversized text (a description of 100,000 中 answered 500)', () => {
  it('Attack: POST /courses with a description of 100,000 中 (300 KB) answers 400 naming description and writes nothing', async () => {
    // Prepare
    const t = await newTenant()

    // Act
    const reply = await t.api.post('/api/v1/courses', { title: 'Big', description: HAN.repeat(100_000) })

    // Assess
    expect400Naming(reply, 'description')
    expect((await t.api.get('/api/v1/courses')).body.meta.total).toBe(0)
  })

  it('Attack: PATCH /courses with a description of 70,000 中 answers 400 naming description; the course is unchanged', async () => {
    // Prepare
    const t = await newTenant()
    const course = await courseOf(t, { description: 'Before' })

    // Act
    const reply = await t.api.patch(`/api/v1/courses/${course.id}`, { description: HAN.repeat(70_000) })

    // Assess
    expect400Naming(reply, 'description')
    const after = (await t.api.get(`/api/v1/courses/${course.id}`)).body.data
    expect(after).toMatchObject({ description: 'Before', updated_at: course.updated_at })
  })

  it('accepts a course description of exactly 64 KiB in UTF-8 and refuses one byte more, on POST and PATCH', async () => {
    // Prepare
    const t = await newTenant()
    const exact = `${HAN.repeat((DESCRIPTION_BYTES - 1) / 3)}x`
    expect(Buffer.byteLength(exact, 'utf8')).toBe(DESCRIPTION_BYTES)
    const over = `${exact}x`

    // Act
    const created = await t.api.post('/api/v1/courses', { title: 'Exact', description: exact })
    const refused = await t.api.post('/api/v1/courses', { title: 'Over', description: over })
    const patched = await t.api.patch(`/api/v1/courses/${created.body.data.id}`, { description: over })

    // Assess
    expect(created.status).toBe(201)
    expect(created.body.data.description).toBe(exact)
    expect400Naming(refused, 'description')
    expect400Naming(patched, 'description')
    expect((await t.api.get(`/api/v1/courses/${created.body.data.id}`)).body.data.description).toBe(exact)
  })

  it('Attack: custom_fields filled to the brim across many string fields answers 400 naming custom_fields', async () => {
    // Prepare: twelve string fields of 1,000 中 each (36 KB) are each valid, but not together.
    const t = await newTenant()
    const keys = Array.from({ length: 12 }, (_, i) => `notes_${i}`)
    for (const key of keys) {
      await putCustomFieldDef(t.tenant, { key, label: key, type: 'string', required: false, options: [] })
    }
    const values = Object.fromEntries(keys.map((k) => [k, HAN.repeat(1000)]))
    const fits = Object.fromEntries(keys.slice(0, 8).map((k) => [k, HAN.repeat(1000)]))

    // Act
    const refused = await t.api.post('/api/v1/users', userBody({ custom_fields: values }))
    const accepted = await t.api.post('/api/v1/users', userBody({ custom_fields: fits }))
    const patched = await t.api.patch(`/api/v1/users/${accepted.body.data.id}`, { custom_fields: values })

    // Assess
    expect400Naming(refused, 'custom_fields')
    expect(accepted.status).toBe(201)
    expect400Naming(patched, 'custom_fields')
    const users = (await t.api.get('/api/v1/users')).body
    expect(users.meta.total).toBe(1)
    expect((await t.api.get(`/api/v1/users/${accepted.body.data.id}`)).body.data.custom_fields).toEqual(fits)
  })

  it('Attack: a custom_fields key of 10,000 characters answers 400 naming custom_fields without echoing the key', async () => {
    // Prepare
    const t = await newTenant()

    // Act
    const reply = await t.api.post('/api/v1/users', userBody({ custom_fields: { ['k'.repeat(10_000)]: 1 } }))

    // Assess
    expect400Naming(reply, 'custom_fields')
    expect((await t.api.get('/api/v1/users')).body.meta.total).toBe(0)
  })

  it('Attack: the CLI refuses a course description of 30,000 中 (90 KB) naming description, and writes nothing', async () => {
    // Prepare
    const t = await newTenant()

    // Act
    const result = await lms(
      'course',
      'create',
      '--tenant',
      t.slug,
      '--title',
      'From the CLI',
      '--description',
      HAN.repeat(30_000),
    )

    // Assess
    expect(result.code).toBe(1)
    expect(result.json.error).toMatchObject({ code: 400 })
    expect(result.json.error.message).toMatch(/^description\b/)
    expect((await t.api.get('/api/v1/courses')).body.meta.total).toBe(0)
  })
})

describe('Attack: control characters in names, e-mails and titles', () => {
  const NUL = '\u0000'
  const ESC = '\u001b'
  const DEL = '\u007f'

  it.each([
    ['first_name', { first_name: `Ada${NUL}` }],
    ['last_name', { last_name: `Love${ESC}[31mlace` }],
    ['first_name', { first_name: `Ada${DEL}` }],
    ['first_name', { first_name: 'A\tda' }],
    ['last_name', { last_name: 'Love\nlace' }],
    ['first_name', { first_name: 'Ada\u0085' }],
    ['last_name', { last_name: 'Love\ud800lace' }],
    ['email', { email: `ada${NUL}@example.com` }],
    ['external_id', { external_id: `hr-1${NUL}` }],
  ])('Attack: POST /users answers 400 naming %s for %j and writes nothing', async (field, override) => {
    // Prepare
    const t = await newTenant()

    // Act
    const reply = await t.api.post('/api/v1/users', userBody(override))

    // Assess
    expect400Naming(reply, field)
    expect((await t.api.get('/api/v1/users')).body.meta.total).toBe(0)
  })

  it('Attack: PATCH /users with a NUL in a name or external_id answers 400 naming it; the user is unchanged', async () => {
    // Prepare
    const t = await newTenant()
    const user = (await t.api.post('/api/v1/users', userBody({ external_id: 'hr-1' }))).body.data

    // Act
    const first = await t.api.patch(`/api/v1/users/${user.id}`, { first_name: `Eve${NUL}` })
    const external = await t.api.patch(`/api/v1/users/${user.id}`, { external_id: `hr${ESC}2` })

    // Assess
    expect400Naming(first, 'first_name')
    expect400Naming(external, 'external_id')
    expect((await t.api.get(`/api/v1/users/${user.id}`)).body.data).toMatchObject({
      first_name: user.first_name,
      external_id: 'hr-1',
      updated_at: user.updated_at,
    })
  })

  it('Attack: course, module and group titles and names refuse control characters, tab and newline inside', async () => {
    // Prepare
    const t = await newTenant()
    const course = await courseOf(t)
    const group = (await t.api.post('/api/v1/groups', { name: 'Team' })).body.data

    // Act
    const courseTitle = await t.api.post('/api/v1/courses', { title: `Intro${NUL}` })
    const patchedTitle = await t.api.patch(`/api/v1/courses/${course.id}`, { title: 'Intro\nto =1+1' })
    const moduleTitle = await t.api.post(`/api/v1/courses/${course.id}/modules`, {
      title: `Part\t1`,
      module_type: 'video',
    })
    const groupName = await t.api.post('/api/v1/groups', { name: `Ops${DEL}` })
    const renamed = await t.api.patch(`/api/v1/groups/${group.id}`, { name: `Ops${ESC}` })

    // Assess
    expect400Naming(courseTitle, 'title')
    expect400Naming(patchedTitle, 'title')
    expect400Naming(moduleTitle, 'title')
    expect400Naming(groupName, 'name')
    expect400Naming(renamed, 'name')
    expect((await t.api.get('/api/v1/courses')).body.meta.total).toBe(1)
    expect((await t.api.get(`/api/v1/courses/${course.id}/modules`)).body.data).toEqual([])
    expect((await t.api.get('/api/v1/groups')).body.data.map((g: { name: string }) => g.name)).toEqual([
      'Team',
    ])
  })

  it('keeps tab and line breaks in descriptions, and refuses the other control characters there', async () => {
    // Prepare
    const t = await newTenant()
    const text = 'Line one\n\tindented\r\nline three'

    // Act
    const course = await t.api.post('/api/v1/courses', { title: 'Formatted', description: text })
    const module = await t.api.post(`/api/v1/courses/${course.body.data.id}/modules`, {
      title: 'Part 1',
      module_type: 'video',
      description: text,
    })
    const group = await t.api.post('/api/v1/groups', { name: 'Formatted', description: text })
    const badCourse = await t.api.post('/api/v1/courses', { title: 'Bad', description: `x${NUL}` })
    const badModule = await t.api.post(`/api/v1/courses/${course.body.data.id}/modules`, {
      title: 'Part 2',
      module_type: 'video',
      description: `x${ESC}`,
    })
    const badGroup = await t.api.patch(`/api/v1/groups/${group.body.data.id}`, { description: `x${DEL}` })
    const badShort = await t.api.patch(`/api/v1/courses/${course.body.data.id}`, {
      short_description: `x${NUL}`,
    })

    // Assess
    expect(course.status).toBe(201)
    expect(course.body.data.description).toBe(text)
    expect(module.status).toBe(201)
    expect(module.body.data.description).toBe(text)
    expect(group.status).toBe(201)
    expect(group.body.data.description).toBe(text)
    expect400Naming(badCourse, 'description')
    expect400Naming(badModule, 'description')
    expect400Naming(badGroup, 'description')
    expect400Naming(badShort, 'short_description')
    expect((await t.api.get('/api/v1/courses')).body.meta.total).toBe(1)
  })

  it('Attack: sign-up and contact refuse control characters in names and e-mails, and write nothing', async () => {
    // Prepare
    const slug = `s-${randomBytes(5).toString('hex')}`
    const signup = {
      organization_name: 'Acme',
      slug,
      email: `owner-${randomBytes(3).toString('hex')}@acme.example`,
      first_name: 'Grace',
      last_name: 'Hopper',
    }
    const marker = randomBytes(6).toString('hex')
    const contact = { name: 'Ada', email: 'ada@example.com', message: `Hello ${marker}` }
    const post = (path: string, body: unknown) =>
      call('POST', path, { host: 'www.localhost', body, localAddress: newAddress() })

    // Act
    const organization = await post('/api/v1/signup', { ...signup, organization_name: `Acme${NUL}` })
    const owner = await post('/api/v1/signup', { ...signup, last_name: `Hopper${ESC}` })
    const name = await post('/api/v1/contact', { ...contact, name: `Ada${NUL}` })
    const subject = await post('/api/v1/contact', { ...contact, subject: `Hi\nthere` })
    const message = await post('/api/v1/contact', { ...contact, message: `Hello${NUL} ${marker}` })
    const multiline = await post('/api/v1/contact', { ...contact, message: `Hello\n\tthere ${marker}` })

    // Assess
    expect400Naming(organization, 'organization_name')
    expect400Naming(owner, 'last_name')
    expect400Naming(name, 'name')
    expect400Naming(subject, 'subject')
    expect400Naming(message, 'message')
    expect(multiline.status).toBe(202)
    expect(await getTenantBySlug(slug)).toBeUndefined()
    const listed = await lms('contact', 'list', '--limit', '500')
    const mine = listed.json.data.filter((r: { message: string }) => r.message.includes(marker))
    expect(mine.map((r: { message: string }) => r.message)).toEqual([`Hello\n\tthere ${marker}`])
  })

  it('Attack: a custom string field keeps tab and line breaks and refuses the other control characters', async () => {
    // Prepare
    const t = await newTenant()
    await putCustomFieldDef(t.tenant, {
      key: 'notes',
      label: 'Notes',
      type: 'string',
      required: false,
      options: [],
    })

    // Act
    const kept = await t.api.post('/api/v1/users', userBody({ custom_fields: { notes: 'a\n\tb' } }))
    const refused = await t.api.post('/api/v1/users', userBody({ custom_fields: { notes: `a${NUL}b` } }))

    // Assess
    expect(kept.status).toBe(201)
    expect(kept.body.data.custom_fields).toEqual({ notes: 'a\n\tb' })
    expect400Naming(refused, 'custom_fields.notes')
    expect((await t.api.get('/api/v1/users')).body.meta.total).toBe(1)
  })

  it('Attack: a list search holding a NUL answers 400 naming search', async () => {
    // Prepare
    const t = await newTenant()

    // Act
    const courses = await t.api.get(`/api/v1/courses?search=a%00b`)
    const groups = await t.api.get(`/api/v1/groups?search=a%1Bb`)

    // Assess
    expect400Naming(courses, 'search')
    expect400Naming(groups, 'search')
  })

  it('Attack: the CLI refuses control characters in a custom field label, a category and a language, naming them', async () => {
    // Prepare
    const t = await newTenant()
    const course = await courseOf(t)

    // Act
    const label = await lms(
      'custom-field',
      'create',
      '--tenant',
      t.slug,
      '--key',
      'dept',
      '--label',
      `Dept${ESC}`,
    )
    const category = await lms(
      'course',
      'configure',
      '--tenant',
      t.slug,
      '--course',
      course.id,
      '--category',
      `Ops${ESC}`,
    )
    const language = await lms(
      'course',
      'configure',
      '--tenant',
      t.slug,
      '--course',
      course.id,
      '--language',
      `en${ESC}`,
    )

    // Assess
    expect(label.json.error.message).toMatch(/^label\b/)
    expect(category.json.error.message).toMatch(/^category\b/)
    expect(language.json.error.message).toMatch(/^language\b/)
    expect((await lms('custom-field', 'list', '--tenant', t.slug)).json.data).toEqual([])
  })

  it('Attack: the CLI refuses control characters in a group or tenant name, naming it', async () => {
    // Prepare
    const t = await newTenant()

    // Act
    const group = await lms('group', 'create', '--tenant', t.slug, '--name', `Ops${ESC}`)
    const tenant = await lms('tenant', 'update', '--tenant', t.slug, '--name', `Acme${ESC}`)

    // Assess
    expect(group.code).toBe(1)
    expect(group.json.error.message).toMatch(/^name\b/)
    expect(tenant.code).toBe(1)
    expect(tenant.json.error.message).toMatch(/^name\b/)
    expect((await t.api.get('/api/v1/groups')).body.meta.total).toBe(0)
    expect((await lms('tenant', 'get', '--tenant', t.slug)).json.name).toBe(t.tenant.name)
  })
})
