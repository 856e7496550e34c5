/** Arranging learning data over HTTP (and course settings, which the API does not expose). */
import { randomUUID } from 'node:crypto'
import * as v from 'valibot'
import { expect } from 'vitest'
import type { CourseSettings } from '../../shared/domain/courses/course.ts'
import { CreateEnrollmentInput } from '../../shared/domain/enrollments/enrollment.ts'
import { configureCourse } from '../../shared/services/courses/courses-service.ts'
import { enroll as enrollThroughEngine } from '../../shared/services/enrollments/enrollment-engine.ts'
import { userBody, type TestTenant } from './tenants.ts'

export async function user(t: TestTenant, over: Record<string, unknown> = {}) {
  const r = await t.api.post('/api/v1/users', userBody(over))
  expect(r.status).toBe(201)
  return r.body.data as { id: string; email: string }
}

/** POST /users (201 expected) and the new user's id. */
export async function userId(t: TestTenant, over: Record<string, unknown> = {}): Promise<string> {
  return (await user(t, over)).id
}

export interface CourseOptions {
  readonly publish?: boolean
  readonly modules?: readonly { title: string; module_type: string; is_required?: boolean }[]
  readonly settings?: Partial<CourseSettings>
}

export async function course(t: TestTenant, o: CourseOptions = {}) {
  const r = await t.api.post('/api/v1/courses', { title: `Course ${randomUUID().slice(0, 6)}` })
  expect(r.status).toBe(201)
  const id = r.body.data.id as string
  const modules: { id: string; title: string }[] = []
  for (const m of o.modules ?? []) {
    const added = await t.api.post(`/api/v1/courses/${id}/modules`, m)
    expect(added.status).toBe(201)
    modules.push(added.body.data)
  }
  if (o.publish ?? true) {
    expect((await t.api.patch(`/api/v1/courses/${id}`, { status: 'published' })).status).toBe(200)
  }
  if (o.settings) await configureCourse(t.tenant, id, o.settings)
  return { id, title: r.body.data.title as string, modules }
}

/** The enrollment resource, as POST and GET /enrollments return it (the fields tests read). */
export interface EnrollmentView {
  readonly id: string
  readonly user_id: string
  readonly course_id: string
  readonly status: string
  readonly due_date: string | null
  readonly completed_at: string | null
  readonly created_at: string
  readonly enrolled_at: string
}

/** POST /enrollments (201 expected); `extra` joins the body, e.g. `{ due_date }`. */
export async function enroll(
  t: TestTenant,
  userId: string,
  courseId: string,
  extra: Record<string, unknown> = {},
): Promise<EnrollmentView> {
  const r = await t.api.post('/api/v1/enrollments', { user_id: userId, course_id: courseId, ...extra })
  expect(r.status).toBe(201)
  return r.body.data as EnrollmentView
}

/**
 * The enrollment POST /enrollments would make (the same input rules and engine), made at `at`:
 * a test whose list order rests on enrollment times names them. The stack serves from its own
 * process, so a test cannot set the clock its requests read; pausing between requests is slow
 * and still leaves equal milliseconds possible.
 */
export async function enrollAt(
  t: TestTenant,
  at: string,
  body: { user_id: string; course_id: string; due_date?: string },
): Promise<EnrollmentView> {
  const input = v.parse(CreateEnrollmentInput, body)
  const rows = [{ userId: input.user_id, courseId: input.course_id, dueDate: input.due_date ?? null }]
  const [result] = await enrollThroughEngine(t.tenant, rows, 'api', at)
  if (!result || 'error' in result) throw new Error(`not enrolled: ${result?.error ?? 'no result'}`)
  const r = await t.api.get(`/api/v1/enrollments/${result.ok.id}`)
  expect(r.status).toBe(200)
  return r.body.data as EnrollmentView
}
