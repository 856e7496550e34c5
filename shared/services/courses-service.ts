/** Courses and modules: creation, the status state machine with its events and cap, settings. */
import { randomUUID } from 'node:crypto'
import {
  CategoryName,
  CourseLanguage,
  defaultSettings,
  transition,
  type Course,
  type CourseSettings,
  type CreateCourseInput,
  type UpdateCourseInput,
} from '../domain/courses/course.ts'
import type { AppModuleInput, Module } from '../domain/courses/module.ts'
import { ConflictError, NotFoundError, RuleViolationError, ValidationError } from '../domain/errors.ts'
import { planById } from '../domain/plans/catalog.ts'
import { parseOrThrow } from '../domain/validation.ts'
import { courseCapError } from '../domain/plans/entitlements.ts'
import type { TenantContext } from '../domain/tenants/tenant.ts'
import { newEvent } from '../domain/events.ts'
import { outboxPut } from '../store/outbox-items.ts'
import {
  CourseCapReachedError,
  getCategory,
  getCategoryByName,
  getCourse as getStoredCourse,
  insertCategory,
  insertCourse,
  insertModule,
  listModules as listStoredModules,
  ModuleOrderTakenError,
  setCourseSettings,
  StaleCourseError,
  updateCourse as updateStoredCourse,
  type Category,
  type CourseChanges,
} from '../store/courses-store.ts'
import { listCourses as listStoredCourses, type CourseListQuery } from '../store/courses-list.ts'

const nowIso = () => new Date().toISOString()

export async function getCourse(tenant: TenantContext, id: string, consistent = false): Promise<Course> {
  const course = await getStoredCourse(tenant, id, { consistent })
  if (!course) throw new NotFoundError('course')
  return course
}

export async function listCourses(
  tenant: TenantContext,
  q: Omit<CourseListQuery, 'categoryId'> & { category?: string },
): Promise<{ items: Course[]; total: number }> {
  let categoryId: string | undefined
  if (q.category !== undefined) {
    const category = await getCategoryByName(tenant, q.category)
    // An exact name: a category that differs only in case is another name.
    if (!category || category.name !== q.category) return { items: [], total: 0 }
    categoryId = category.id
  }
  return listStoredCourses(tenant, { ...q, categoryId })
}

/** A new course is a draft with an initial version (an imported shell may come without one). */
export async function createCourse(
  tenant: TenantContext,
  input: CreateCourseInput,
  options: { withVersion?: boolean } = {},
  at = nowIso(),
): Promise<Course> {
  const course: Course = {
    id: randomUUID(),
    title: input.title,
    description: input.description ?? null,
    shortDescription: input.short_description ?? '',
    status: 'draft',
    categoryId: null,
    estimatedMinutes: input.estimated_minutes ?? 0,
    currentVersionId: options.withVersion === false ? null : randomUUID(),
    publishedAt: null,
    createdAt: at,
    updatedAt: at,
    enrollmentCount: 0,
    moduleCount: 0,
    seatsTaken: 0,
    settings: defaultSettings,
  }
  await insertCourse(tenant, course)
  return course
}

const updatable = ['title', 'description', 'short_description', 'estimated_minutes', 'status'] as const

export async function updateCourse(
  tenant: TenantContext,
  id: string,
  input: UpdateCourseInput,
  at = nowIso(),
): Promise<Course> {
  if (!updatable.some((field) => input[field] !== undefined)) {
    throw new ValidationError('body', `body: send at least one of ${updatable.join(', ')}`)
  }
  for (let attempt = 0; attempt < 4; attempt++) {
    const current = await getCourse(tenant, id, attempt > 0)
    const move = transition(current.status, input.status ?? current.status)
    if (move.kind === 'publish' && !current.currentVersionId) {
      throw new RuleViolationError('course.no_version', 'The course has no version to publish')
    }
    const changes: CourseChanges = {
      title: input.title,
      description: input.description,
      shortDescription: input.short_description,
      estimatedMinutes: input.estimated_minutes,
      status: input.status,
      ...(move.kind === 'publish' ? { publishedAt: at } : {}),
    }
    const events =
      move.kind === 'publish'
        ? [newEvent('course.published', { courseId: id, title: input.title ?? current.title }, at)]
        : move.kind === 'archive'
          ? [newEvent('course.archived', { courseId: id, title: input.title ?? current.title }, at)]
          : []
    try {
      return await updateStoredCourse(
        tenant,
        current,
        changes,
        move,
        planById(tenant.plan).courseCap,
        at,
        events.map((e) => outboxPut(tenant, e)),
      )
    } catch (err) {
      if (err instanceof CourseCapReachedError) throw courseCapError(tenant.plan)
      if (!(err instanceof StaleCourseError)) throw err
    }
  }
  throw new ConflictError('course.concurrent_update', 'The course changed meanwhile; retry')
}

/** DELETE: archives (history kept). Archiving an archived course is a no-op. */
export async function archiveCourse(tenant: TenantContext, id: string, at = nowIso()): Promise<void> {
  const current = await getCourse(tenant, id)
  if (current.status === 'archived') return
  await updateCourse(tenant, id, { status: 'archived' }, at)
}

export function listModules(tenant: TenantContext, courseId: string): Promise<Module[]> {
  return listStoredModules(tenant, courseId)
}

const MAX_APPEND_TRIES = 40
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export async function addModule(
  tenant: TenantContext,
  courseId: string,
  input: AppModuleInput,
  at = nowIso(),
): Promise<Module> {
  // Each lost race means another append won, so a caller among n racing appends wins within n tries.
  for (let attempt = 0; attempt < MAX_APPEND_TRIES; attempt++) {
    if (attempt > 0) await sleep(Math.random() * 5 * Math.min(attempt, 10))
    const course = await getCourse(tenant, courseId, true)
    if (course.status === 'archived') {
      throw new RuleViolationError('course.archived', 'Modules cannot be added to an archived course')
    }
    const module: Module = {
      id: randomUUID(),
      courseId,
      title: input.title,
      description: input.description ?? null,
      moduleType: input.module_type,
      isRequired: input.is_required ?? true,
      orderIndex: course.moduleCount,
      createdAt: at,
    }
    try {
      await insertModule(tenant, module)
      return module
    } catch (err) {
      if (!(err instanceof ModuleOrderTakenError)) throw err
    }
  }
  throw new ConflictError('module.concurrent_append', 'Modules were added meanwhile; retry')
}

/** The category of that name, created when the tenant has none (names are unique ignoring case). */
export async function ensureCategory(tenant: TenantContext, name: string): Promise<Category> {
  const trimmed = parseOrThrow(CategoryName, name, 'category')
  const existing = await getCategoryByName(tenant, trimmed)
  if (existing) return existing
  const category = { id: randomUUID(), name: trimmed }
  if (await insertCategory(tenant, category)) return category
  const raced = await getCategoryByName(tenant, trimmed)
  if (!raced) throw new ConflictError('category.concurrent_create', 'The category changed meanwhile; retry')
  return raced
}

export async function categoryOf(tenant: TenantContext, course: Course): Promise<Category | undefined> {
  return course.categoryId ? getCategory(tenant, course.categoryId) : undefined
}

export async function configureCourse(
  tenant: TenantContext,
  id: string,
  changes: Partial<CourseSettings> & { category?: string },
  at = nowIso(),
): Promise<Course> {
  const current = await getCourse(tenant, id)
  const { category, ...rest } = changes
  const settingsChanges =
    rest.language === undefined
      ? rest
      : { ...rest, language: parseOrThrow(CourseLanguage, rest.language, 'language') }
  const categoryId = category !== undefined ? (await ensureCategory(tenant, category)).id : undefined
  for (const prerequisite of settingsChanges.prerequisites ?? []) {
    if (prerequisite === id)
      throw new ValidationError('prerequisites', 'a course cannot be its own prerequisite')
    if (!(await getStoredCourse(tenant, prerequisite))) {
      throw new ValidationError(
        'prerequisites',
        `prerequisites: ${prerequisite} is not a course of this tenant`,
      )
    }
  }
  const updated = await setCourseSettings(
    tenant,
    id,
    { ...current.settings, ...settingsChanges },
    categoryId,
    at,
  )
  if (!updated) throw new NotFoundError('course')
  return updated
}
