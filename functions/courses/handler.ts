/** Route group `courses`: courses, their modules and course-scoped enrollments. */
import {
  CreateCourseInput,
  courseSorts,
  ListCoursesFilters,
  UpdateCourseInput,
} from '../../shared/domain/courses/course.ts'
import { AddModuleInput } from '../../shared/domain/courses/module.ts'
import { parseBody, parseOrThrow, Uuid } from '../../shared/domain/validation.ts'
import { listMeta, paging, sorting } from '../../shared/http/list-query.ts'
import { created, noContent, ok } from '../../shared/http/responses.ts'
import { pathId, route } from '../../shared/http/route.ts'
import { httpStack } from '../../shared/http/stack.ts'
import { CourseEnrollmentInput } from '../../shared/domain/enrollments/enrollment.ts'
import * as courses from '../../shared/services/courses/courses-service.ts'
import * as enrollments from '../../shared/services/enrollments/enrollments-service.ts'
import { toCourseEnrollmentItem, toEnrollmentResource } from '../enrollments/representation.ts'
import { CourseEnrollmentsQuery } from './queries.ts'
import { toCourseListItem, toCourseResource, toModuleResource } from './representation.ts'

export const listCourses = route('GET /api/v1/courses', async ({ tenant, query }) => {
  const filters = parseOrThrow(ListCoursesFilters, query)
  const page = paging(query)
  const sort = sorting(query, courseSorts, { by: 'created_at', order: 'desc' })
  const { items, total } = await courses.listCourses(tenant, {
    status: filters.status,
    category: filters.category,
    search: filters.search,
    createdAfter: filters.created_after,
    sortBy: sort.by,
    order: sort.order,
    offset: page.offset,
    limit: page.perPage,
  })
  return ok(items.map(toCourseListItem), listMeta(page, total))
})

export const createCourse = route('POST /api/v1/courses', async ({ tenant, body }) => {
  return created(toCourseResource(await courses.createCourse(tenant, parseBody(CreateCourseInput, body))))
})

export const getCourse = route('GET /api/v1/courses/{id}', async ({ tenant, ...input }) => {
  return ok(toCourseResource(await courses.getCourse(tenant, pathId(input, 'id', 'course', Uuid))))
})

export const updateCourse = route('PATCH /api/v1/courses/{id}', async ({ tenant, body, ...input }) => {
  const id = pathId(input, 'id', 'course', Uuid)
  return ok(toCourseResource(await courses.updateCourse(tenant, id, parseBody(UpdateCourseInput, body, {}))))
})

export const archiveCourse = route('DELETE /api/v1/courses/{id}', async ({ tenant, ...input }) => {
  await courses.archiveCourse(tenant, pathId(input, 'id', 'course', Uuid))
  return noContent()
})

export const listModules = route('GET /api/v1/courses/{id}/modules', async ({ tenant, ...input }) => {
  const id = pathId(input, 'id', 'course', Uuid)
  await courses.getCourse(tenant, id)
  return ok((await courses.listModules(tenant, id)).map(toModuleResource))
})

export const addModule = route('POST /api/v1/courses/{id}/modules', async ({ tenant, body, ...input }) => {
  const id = pathId(input, 'id', 'course', Uuid)
  return created(toModuleResource(await courses.addModule(tenant, id, parseBody(AddModuleInput, body))))
})

export const listCourseEnrollments = route(
  'GET /api/v1/courses/{id}/enrollments',
  async ({ tenant, query, ...input }) => {
    const id = pathId(input, 'id', 'course', Uuid)
    const { status } = parseOrThrow(CourseEnrollmentsQuery, query)
    await courses.getCourse(tenant, id)
    const page = paging(query)
    const { items, total } = await enrollments.listEnrollments(tenant, {
      courseId: id,
      status,
      sortBy: 'enrolled_at',
      order: 'desc',
      offset: page.offset,
      limit: page.perPage,
    })
    return ok(items.map(toCourseEnrollmentItem), listMeta(page, total))
  },
)

export const enrollInCourse = route(
  'POST /api/v1/courses/{id}/enrollments',
  async ({ tenant, body, ...input }) => {
    const courseId = pathId(input, 'id', 'course', Uuid)
    const { user_id, due_date } = parseBody(CourseEnrollmentInput, body)
    const e = await enrollments.createEnrollment(tenant, {
      userId: user_id,
      courseId,
      dueDate: due_date ?? null,
    })
    return created(toEnrollmentResource(e))
  },
)

export const handler = httpStack([
  listCourses,
  createCourse,
  getCourse,
  updateCourse,
  archiveCourse,
  listModules,
  addModule,
  listCourseEnrollments,
  enrollInCourse,
])
