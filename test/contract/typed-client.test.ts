/**
 * The typed client (clients/typescript) driven against the stack: every path, body and answer
 * below is typed from the generated schema, so reading `data.id` or `meta.total` compiles only
 * because the document describes them (an `unknown` would fail `tsc`).
 */
import { randomUUID } from 'node:crypto'
import { describe, expect, inject, it } from 'vitest'
import { createLmsClient, type LmsClient } from '../../clients/typescript/src/index.ts'
import { localhostFetch } from '../helpers/localhost-fetch.ts'
import { newTenant } from '../helpers/tenants.ts'

interface Result<Data, Failure> {
  readonly data?: Data
  readonly error?: Failure
  readonly response: Response
}

/** The success's body as the schema types it; otherwise the test fails showing the status and error. */
function answered<Data, Failure>(result: Result<Data, Failure>, status: number): Data {
  expect({ status: result.response.status, error: result.error }).toEqual({ status, error: undefined })
  if (result.data === undefined) throw new Error(`${status} without a body`)
  return result.data
}

/** The error envelope as the schema types it, answered with `status`. */
function refused<Data, Failure>(result: Result<Data, Failure>, status: number): Failure {
  expect({ status: result.response.status, data: result.data }).toEqual({ status, data: undefined })
  if (result.error === undefined) throw new Error(`${status} without an error envelope`)
  return result.error
}

/** The suite's gateway as the service's URL (`http://localhost:<port>`): tenants are its subdomains. */
function serviceUrl(): string {
  const url = new URL(inject('gatewayUrl'))
  url.hostname = 'localhost'
  return url.origin
}

async function tenantClient(): Promise<LmsClient> {
  const t = await newTenant()
  return createLmsClient({ baseUrl: serviceUrl(), tenant: t.slug, apiKey: t.adminKey, fetch: localhostFetch })
}

async function newUser(lms: LmsClient, lastName: string): Promise<string> {
  const created = await lms.POST('/api/v1/users', {
    body: { email: `${randomUUID()}@example.com`, first_name: 'Ada', last_name: lastName, role: 'learner' },
  })
  return answered(created, 201).data.id
}

async function publishedCourse(lms: LmsClient, title: string): Promise<string> {
  const { data: course } = answered(await lms.POST('/api/v1/courses', { body: { title } }), 201)
  expect(course).toMatchObject({ title, status: 'draft' })
  const added = await lms.POST('/api/v1/courses/{id}/modules', {
    params: { path: { id: course.id } },
    body: { title: 'Welcome', module_type: 'video' },
  })
  expect(answered(added, 201).data).toMatchObject({ title: 'Welcome', module_type: 'video' })
  const published = await lms.PATCH('/api/v1/courses/{id}', {
    params: { path: { id: course.id } },
    body: { status: 'published' },
  })
  expect(answered(published, 200).data.status).toBe('published')
  return course.id
}

describe('the typed client', () => {
  it('creates a user, a course with a module, publishes, enrolls and reads the enrollment back', async () => {
    const lms = await tenantClient()
    const userId = await newUser(lms, 'Lovelace')
    const courseId = await publishedCourse(lms, 'Safety basics')

    const enrolled = await lms.POST('/api/v1/enrollments', { body: { user_id: userId, course_id: courseId } })
    const enrollmentId = answered(enrolled, 201).data.id

    const read = await lms.GET('/api/v1/enrollments/{id}', { params: { path: { id: enrollmentId } } })
    expect(answered(read, 200).data).toMatchObject({
      id: enrollmentId,
      user_id: userId,
      course_id: courseId,
      status: 'active',
    })
  })

  it('lists pages with their typed meta', async () => {
    const lms = await tenantClient()
    const courseId = await publishedCourse(lms, 'Paged')
    const userIds: string[] = []
    for (const name of ['Hopper', 'Lamarr', 'Noether']) {
      const userId = await newUser(lms, name)
      const enrolled = await lms.POST('/api/v1/enrollments', {
        body: { user_id: userId, course_id: courseId },
      })
      answered(enrolled, 201)
      userIds.push(userId)
    }

    const page = async (n: number) =>
      answered(
        await lms.GET('/api/v1/courses/{id}/enrollments', {
          params: { path: { id: courseId }, query: { page: n, per_page: 2 } },
        }),
        200,
      )
    const first = await page(1)
    const second = await page(2)
    expect(first.meta).toEqual({ page: 1, per_page: 2, total: 3 })
    expect(second.meta.total).toBe(3)
    expect([first.data.length, second.data.length]).toEqual([2, 1])
    const listed = [...first.data, ...second.data].map((e) => e.user_id)
    expect(listed.sort()).toEqual(userIds.sort())
  })

  it('reads errors from the envelope: 404 for an unknown id, 400 naming the field', async () => {
    const lms = await tenantClient()

    const missing = await lms.GET('/api/v1/enrollments/{id}', { params: { path: { id: randomUUID() } } })
    expect(refused(missing, 404).error.code).toBe(404)

    const invalid = await lms.POST('/api/v1/users', {
      body: { email: 'not-an-address', first_name: 'Ada', last_name: 'Lovelace', role: 'learner' },
    })
    const { error } = refused(invalid, 400)
    expect(error.code).toBe(400)
    expect(error.message).toContain('email')
  })
})
