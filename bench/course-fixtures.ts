/**
 * Published courses for the enrollment scenarios, made through the courses service (create, an
 * optional required module, publish), a few at a time. Not part of any measured request.
 */
import type { TenantContext } from '../shared/domain/tenants/tenant.ts'
import { addModule, createCourse, updateCourse } from '../shared/services/courses/courses-service.ts'

export interface CourseFixture {
  readonly id: string
  /** The course's one required module, when it was given one (so it can be completed). */
  readonly moduleId: string | null
}

/** Runs fn over items with at most `limit` in flight; results in input order. */
export async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const out = new Array<R>(items.length)
  let next = 0
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++
      out[i] = await fn(items[i] as T, i)
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker))
  return out
}

export async function publishedCourse(
  tenant: TenantContext,
  title: string,
  withModule: boolean,
): Promise<CourseFixture> {
  const course = await createCourse(tenant, { title, estimated_minutes: 30 })
  const module = withModule
    ? await addModule(tenant, course.id, { title: 'Lesson', module_type: 'video', is_required: true })
    : null
  await updateCourse(tenant, course.id, { status: 'published' })
  return { id: course.id, moduleId: module?.id ?? null }
}

export function publishedCourses(
  tenant: TenantContext,
  count: number,
  options: {
    readonly title: (index: number) => string
    readonly withModule?: (index: number) => boolean
    readonly concurrency: number
  },
): Promise<CourseFixture[]> {
  return mapLimit(
    Array.from({ length: count }, (_, i) => i),
    options.concurrency,
    (i) => publishedCourse(tenant, options.title(i), options.withModule?.(i) ?? false),
  )
}
