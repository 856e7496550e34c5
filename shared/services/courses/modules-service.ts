/**
 * Module edits over the API (api-additions section 4): text edits, delete and reorder. A delete
 * also takes the deleted module out of every enrollment's progress, so percent and score follow
 * the modules left.
 */
import type { Course } from '../../domain/courses/course.ts'
import {
  assertModulesMovable,
  editedModule,
  reorderedModules,
  withoutModule,
  type UpdateModuleInput,
} from '../../domain/courses/module-edits.ts'
import type { Module } from '../../domain/courses/module.ts'
import { withoutModuleProgress } from '../../domain/enrollments/progress.ts'
import { ConflictError, NotFoundError } from '../../domain/errors.ts'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import { listModules } from '../../store/courses/courses-store.ts'
import { moveModules, updateModule as updateStoredModule } from '../../store/courses/module-edits.ts'
import { isStale, retryOnConflict } from '../../store/core/optimistic.ts'
import { WriteRefused } from '../../store/core/store-errors.ts'
import { listCourseEnrollments } from '../../store/enrollments/enrollments-list.ts'
import { getPackageBytes } from '../../store/files/storage-store.ts'
import { errorFields, log } from '../../log.ts'
import { changeEnrollment } from '../enrollments/enrollments-service.ts'
import { getCourse } from './courses-service.ts'

const nowIso = () => new Date().toISOString()

const changedMeanwhile = () =>
  new ConflictError('module.concurrent_update', "The course's modules changed meanwhile; retry")

/** A refused move is read again: the course or its modules changed since the read. */
const isMoveConflict = (err: unknown) => isStale(err) || (err instanceof WriteRefused && err.has('course'))

interface CourseModules {
  readonly course: Course
  readonly modules: Module[]
}

async function courseModules(tenant: TenantContext, courseId: string): Promise<CourseModules> {
  const course = await getCourse(tenant, courseId, true)
  return { course, modules: await listModules(tenant, courseId, { consistent: true }) }
}

function moduleOf(modules: readonly Module[], id: string): Module {
  const module = modules.find((m) => m.id === id)
  if (!module) throw new NotFoundError('module')
  return module
}

/** Runs one try of an edit, again after a lost race (the rules are checked on every fresh read). */
async function retried<T>(attempt: () => Promise<T>): Promise<T> {
  try {
    return await retryOnConflict(attempt, { isConflict: isMoveConflict })
  } catch (err) {
    if (isMoveConflict(err)) throw changedMeanwhile()
    throw err
  }
}

/** PATCH: title and description, whatever the course's state (its learners keep their progress). */
export async function updateModule(
  tenant: TenantContext,
  courseId: string,
  moduleId: string,
  input: UpdateModuleInput,
): Promise<Module> {
  return retried(async () => {
    const { modules } = await courseModules(tenant, courseId)
    const before = moduleOf(modules, moduleId)
    const after = editedModule(before, input)
    if (after.title !== before.title || after.description !== before.description)
      await updateStoredModule(tenant, before, after)
    return after
  })
}

/**
 * Removes a deleted module's package from the content bucket, once the delete (which gave its room
 * back) is committed. Imported on this path only, so the courses function loads the S3 client
 * only when a deleted module had a package. A failure leaves uncounted bytes, never a lost count.
 */
async function removePackage(tenant: TenantContext, moduleId: string): Promise<void> {
  try {
    const { deleteModulePackage } = await import('../../store/files/content-store.ts')
    await deleteModulePackage(tenant, moduleId)
  } catch (err) {
    log('error', 'module package left in the content bucket', {
      tenantId: tenant.id,
      moduleId,
      ...errorFields(err),
    })
  }
}

/**
 * DELETE: the modules after it move up one place, and its package's room under the storage cap
 * goes back in the same transaction; enrollments' progress follows the modules left.
 */
export async function deleteModule(
  tenant: TenantContext,
  courseId: string,
  moduleId: string,
  at = nowIso(),
): Promise<void> {
  const { left, hadPackage } = await retried(async () => {
    const { course, modules } = await courseModules(tenant, courseId)
    moduleOf(modules, moduleId)
    assertModulesMovable(course, modules.length)
    const after = withoutModule(modules, moduleId)
    const bytes = await getPackageBytes(tenant, moduleId)
    await moveModules(tenant, modules, after, bytes === undefined ? undefined : { moduleId, bytes, at })
    return { left: after, hadPackage: bytes !== undefined }
  })
  if (hadPackage) await removePackage(tenant, moduleId)
  for (const e of await listCourseEnrollments(tenant, courseId)) {
    await changeEnrollment(tenant, e.id, (current) => {
      const enrollment = withoutModuleProgress(current, left, moduleId, at)
      return enrollment ? { enrollment, effects: {} } : undefined
    })
  }
}

/** PUT order: `ids` names every module of the course once, in the new order. */
export async function reorderModules(
  tenant: TenantContext,
  courseId: string,
  ids: readonly string[],
): Promise<Module[]> {
  return retried(async () => {
    const { course, modules } = await courseModules(tenant, courseId)
    const after = reorderedModules(modules, ids)
    assertModulesMovable(course, modules.length)
    await moveModules(tenant, modules, after)
    return after
  })
}
