/** Route group `courses`: courses, their modules and course-scoped enrollments. */
import {
  CreateCourseInput,
  courseSorts,
  ListCoursesFilters,
  UpdateCourseInput,
} from '../../shared/domain/courses/course.ts'
import { CourseSettingsInput, settingsChangesOf } from '../../shared/domain/courses/course-settings.ts'
import { ReorderModulesInput, UpdateModuleInput } from '../../shared/domain/courses/module-edits.ts'
import { AddModuleInput } from '../../shared/domain/courses/module.ts'
import { parseBody, parseOrThrow, Uuid } from '../../shared/domain/validation.ts'
import { listMeta, paging, sorting } from '../../shared/http/list-query.ts'
import { created, noContent, ok } from '../../shared/http/responses.ts'
import { pathId, route } from '../../shared/http/route.ts'
import { httpStack } from '../../shared/http/stack.ts'
import { CourseEnrollmentInput } from '../../shared/domain/enrollments/enrollment.ts'
import * as courses from '../../shared/services/courses/courses-service.ts'
import * as modules from '../../shared/services/courses/modules-service.ts'
import * as enrollments from '../../shared/services/enrollments/enrollments-service.ts'
import { toCourseEnrollmentItem, toEnrollmentResource } from '../enrollments/representation.ts'
import { CourseEnrollmentsQuery } from './queries.ts'
import {
  toCourseListItem,
  toCourseResource,
  toCourseSettingsResource,
  toModuleResource,
} from './representation.ts'

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

/** The settings `lms course configure` sets, by the same service and rules (api-additions section 4). */
export const getCourseSettings = route('GET /api/v1/courses/{id}/settings', async ({ tenant, ...input }) => {
  const course = await courses.getCourse(tenant, pathId(input, 'id', 'course', Uuid))
  const category = await courses.categoryOf(tenant, course)
  return ok(toCourseSettingsResource(course, category?.name ?? null))
})

export const updateCourseSettings = route(
  'PATCH /api/v1/courses/{id}/settings',
  async ({ tenant, body, ...input }) => {
    const id = pathId(input, 'id', 'course', Uuid)
    const changes = settingsChangesOf(parseBody(CourseSettingsInput, body, {}))
    const course = await courses.configureCourse(tenant, id, changes)
    const category = await courses.categoryOf(tenant, course)
    return ok(toCourseSettingsResource(course, category?.name ?? null))
  },
)

export const updateModule = route(
  'PATCH /api/v1/courses/{id}/modules/{module_id}',
  async ({ tenant, body, ...input }) => {
    const id = pathId(input, 'id', 'course', Uuid)
    const moduleId = pathId(input, 'module_id', 'module', Uuid)
    const changed = await modules.updateModule(tenant, id, moduleId, parseBody(UpdateModuleInput, body, {}))
    return ok(toModuleResource(changed))
  },
)

export const deleteModule = route(
  'DELETE /api/v1/courses/{id}/modules/{module_id}',
  async ({ tenant, ...input }) => {
    const id = pathId(input, 'id', 'course', Uuid)
    await modules.deleteModule(tenant, id, pathId(input, 'module_id', 'module', Uuid))
    return noContent()
  },
)

export const reorderModules = route(
  'PUT /api/v1/courses/{id}/modules/order',
  async ({ tenant, body, ...input }) => {
    const id = pathId(input, 'id', 'course', Uuid)
    const { module_ids } = parseBody(ReorderModulesInput, body)
    return ok((await modules.reorderModules(tenant, id, module_ids)).map(toModuleResource))
  },
)

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
  getCourseSettings,
  updateCourseSettings,
  updateModule,
  deleteModule,
  reorderModules,
  listCourseEnrollments,
  enrollInCourse,
])
