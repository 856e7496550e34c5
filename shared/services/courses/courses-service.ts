/** Courses and modules: creation, the status state machine with its events and cap, settings. */
import { getSkill } from '../../store/skills/skills-store.ts'
import { randomUUID } from 'node:crypto'
import {
  CategoryName,
  CourseLanguage,
  defaultSettings,
  transition,
  type Course,
  type CreateCourseInput,
  type UpdateCourseInput,
} from '../../domain/courses/course.ts'
import { assertEnrollmentWindow, type SettingsChanges } from '../../domain/courses/course-settings.ts'
import type { AppModuleInput, Module } from '../../domain/courses/module.ts'
import { ConflictError, NotFoundError, RuleViolationError, ValidationError } from '../../domain/errors.ts'
import { planById } from '../../domain/plans/catalog.ts'
import { parseOrThrow } from '../../domain/validation.ts'
import { courseCapError } from '../../domain/plans/entitlements.ts'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import { newEvent, type Effects } from '../../domain/events.ts'
import {
  appendModule,
  getCategory,
  getCategoryByName,
  getCourse as getStoredCourse,
  insertCategory,
  insertCourse,
  listModules as listStoredModules,
  saveCourse,
  type Category,
  type CourseGuards,
} from '../../store/courses/courses-store.ts'
import { listCourses as listStoredCourses, type CourseListQuery } from '../../store/courses/courses-list.ts'
import { isStale, retryOnConflict } from '../../store/core/optimistic.ts'
import { WriteRefused } from '../../store/core/store-errors.ts'
import { promoteAfterSeatFreed } from '../enrollments/waitlist-promotion.ts'

const nowIso = () => new Date().toISOString()

const guardsOf = (tenant: TenantContext): CourseGuards => ({ courseCap: planById(tenant.plan).courseCap })

const refused = (err: unknown, refusal: string) => err instanceof WriteRefused && err.has(refusal)

const changedMeanwhile = () =>
  new ConflictError('course.concurrent_update', 'The course changed meanwhile; retry')

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
  await insertCourse(tenant, course, guardsOf(tenant))
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
  try {
    return await retryOnConflict(async (tryNumber) => {
      const before = await getCourse(tenant, id, tryNumber > 0)
      const { after, effects } = decideUpdate(before, input, at)
      await saveCourse(tenant, { before, after }, guardsOf(tenant), effects)
      return after
    })
  } catch (err) {
    if (isStale(err)) throw changedMeanwhile()
    if (refused(err, 'course_cap')) throw courseCapError(tenant.plan)
    throw err
  }
}

/** The course after the update, and the event its status change causes. */
function decideUpdate(
  before: Course,
  input: UpdateCourseInput,
  at: string,
): { after: Course; effects: Effects } {
  const move = transition(before.status, input.status ?? before.status)
  if (move.kind === 'publish' && !before.currentVersionId) {
    throw new RuleViolationError('course.no_version', 'The course has no version to publish')
  }
  const after: Course = {
    ...before,
    title: input.title ?? before.title,
    description: input.description !== undefined ? input.description : before.description,
    shortDescription: input.short_description ?? before.shortDescription,
    estimatedMinutes: input.estimated_minutes ?? before.estimatedMinutes,
    status: input.status ?? before.status,
    publishedAt: move.kind === 'publish' ? at : before.publishedAt,
    updatedAt: at,
  }
  const data = { courseId: after.id, title: after.title }
  const events =
    move.kind === 'publish'
      ? [newEvent('course.published', data, at)]
      : move.kind === 'archive'
        ? [newEvent('course.archived', data, at)]
        : []
  return { after, effects: { events } }
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

/** Each lost race means another append won, so a caller among n racing appends wins within n tries. */
const MAX_APPEND_TRIES = 40

export async function addModule(
  tenant: TenantContext,
  courseId: string,
  input: AppModuleInput,
  at = nowIso(),
): Promise<Module> {
  try {
    return await retryOnConflict(
      async () => {
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
        await appendModule(tenant, module)
        return module
      },
      { tries: MAX_APPEND_TRIES, maxDelayMs: 50 },
    )
  } catch (err) {
    if (isStale(err))
      throw new ConflictError('module.concurrent_append', 'Modules were added meanwhile; retry')
    throw err
  }
}

/** The category of that name, created when the tenant has none (names are unique ignoring case). */
export async function ensureCategory(tenant: TenantContext, name: string): Promise<Category> {
  const trimmed = parseOrThrow(CategoryName, name, 'category')
  const existing = await getCategoryByName(tenant, trimmed)
  if (existing) return existing
  const category = { id: randomUUID(), name: trimmed }
  try {
    await insertCategory(tenant, category)
    return category
  } catch (err) {
    if (!refused(err, 'category_name_taken')) throw err
  }
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
  changes: SettingsChanges,
  at = nowIso(),
): Promise<Course> {
  const first = await getCourse(tenant, id)
  assertEnrollmentWindow({ ...first.settings, ...changes })
  const { category, ...rest } = changes
  const settingsChanges =
    rest.language === undefined
      ? rest
      : { ...rest, language: parseOrThrow(CourseLanguage, rest.language, 'language') }
  const categoryId = category !== undefined ? (await ensureCategory(tenant, category)).id : undefined
  if (settingsChanges.accessDays !== undefined && settingsChanges.accessDays !== null) {
    if (!Number.isInteger(settingsChanges.accessDays) || settingsChanges.accessDays < 1)
      throw new ValidationError(
        'access_days',
        'access_days must be a whole number of days, at least 1 (or none)',
      )
  }
  const grant = settingsChanges.grantsSkill
  if (grant && !(await getSkill(tenant, grant.skillId))) {
    throw new ValidationError('grants_skill', `grants_skill: ${grant.skillId} is not a skill of this tenant`)
  }
  for (const prerequisite of settingsChanges.prerequisites ?? []) {
    if (prerequisite === id)
      throw new ValidationError('prerequisite_course_ids', 'a course cannot be its own prerequisite')
    if (!(await getStoredCourse(tenant, prerequisite))) {
      throw new ValidationError(
        'prerequisite_course_ids',
        `prerequisite_course_ids: ${prerequisite} is not a course of this tenant`,
      )
    }
  }
  try {
    const configured = await retryOnConflict(async (tryNumber) => {
      const before = tryNumber === 0 ? first : await getCourse(tenant, id, true)
      const settings = { ...before.settings, ...settingsChanges }
      // Read again after a lost race: the other change may have moved the window's other end.
      assertEnrollmentWindow(settings)
      const after: Course = {
        ...before,
        settings,
        categoryId: categoryId ?? before.categoryId,
        updatedAt: at,
      }
      await saveCourse(tenant, { before, after }, guardsOf(tenant))
      return after
    })
    if (seatsAdded(first.settings.seatLimit, configured.settings.seatLimit))
      await promoteAfterSeatFreed(tenant, id, at)
    return configured
  } catch (err) {
    if (isStale(err)) throw changedMeanwhile()
    throw err
  }
}

/** A raised or removed seat limit frees seats for the waitlist. */
const seatsAdded = (before: number | null, after: number | null): boolean =>
  before !== null && (after === null || after > before)
