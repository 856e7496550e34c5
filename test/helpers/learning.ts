/** Arranging learning data over HTTP (and course settings, which the API does not expose). */
import { randomUUID } from 'node:crypto'
import { expect } from 'vitest'
import type { CourseSettings } from '../../shared/domain/courses/course.ts'
import { configureCourse } from '../../shared/services/courses/courses-service.ts'
import { userBody, type TestTenant } from './tenants.ts'

export async function user(t: TestTenant, over: Record<string, unknown> = {}) {
  const r = await t.api.post('/api/v1/users', userBody(over))
  expect(r.status).toBe(201)
  return r.body.data as { id: string; email: string }
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
