/**
 * Edits of a course's modules (api-additions section 4): text edits always; a delete or a new
 * order rewrites the modules' places, refused while a published course has enrollments (their
 * learners are working through those modules).
 */
import * as v from 'valibot'
import { ConflictError, RuleViolationError, ValidationError } from '../errors.ts'
import { text, textRules } from '../text-rules.ts'
import { Uuid } from '../validation.ts'
import type { Course } from './course.ts'
import type { Module } from './module.ts'

export const UpdateModuleInput = v.strictObject({
  title: v.optional(text(textRules.moduleTitle, { trimmed: true, required: true })),
  description: v.optional(v.nullable(text(textRules.moduleDescription))),
})
export type UpdateModuleInput = v.InferOutput<typeof UpdateModuleInput>

export const ReorderModulesInput = v.strictObject({
  module_ids: v.pipe(v.array(Uuid), v.minLength(1, 'must name every module of the course')),
})
export type ReorderModulesInput = v.InferOutput<typeof ReorderModulesInput>

/**
 * A delete or a reorder rewrites every moved module and the course in one transaction
 * (DynamoDB: at most 100 items), so a course of more modules is refused rather than half-moved.
 */
export const MAX_MOVABLE_MODULES = 99

/** The module after a text edit; at least one field must be sent. */
export function editedModule(m: Module, input: UpdateModuleInput): Module {
  if (input.title === undefined && input.description === undefined)
    throw new ValidationError('body', 'body: send at least one of title, description')
  return {
    ...m,
    title: input.title ?? m.title,
    description: input.description !== undefined ? input.description : m.description,
  }
}

/** Whether the course's modules may change places now (the store repeats it as a condition). */
export function assertModulesMovable(course: Course, moduleCount: number): void {
  if (course.status === 'archived')
    throw new RuleViolationError('course.archived', "An archived course's modules cannot change")
  if (course.status === 'published' && course.enrollmentCount > 0)
    throw new ConflictError(
      'course.has_enrollments',
      'The course is published and has enrollments: its modules cannot be deleted or reordered',
    )
  if (moduleCount > MAX_MOVABLE_MODULES)
    throw new RuleViolationError(
      'course.too_many_modules',
      `Modules of a course of more than ${MAX_MOVABLE_MODULES} modules cannot be deleted or reordered`,
    )
}

const placed = (modules: readonly Module[]): Module[] =>
  modules.map((m, orderIndex) => (m.orderIndex === orderIndex ? m : { ...m, orderIndex }))

/** The modules left after deleting `id`, closing the gap it leaves. */
export function withoutModule(modules: readonly Module[], id: string): Module[] {
  return placed(modules.filter((m) => m.id !== id))
}

/** The modules in the order `ids` names; `ids` must be exactly the course's modules. */
export function reorderedModules(modules: readonly Module[], ids: readonly string[]): Module[] {
  const byId = new Map(modules.map((m) => [m.id, m]))
  const distinct = new Set(ids)
  if (distinct.size !== ids.length)
    throw new ValidationError('module_ids', 'module_ids: an id is named twice')
  const unknown = ids.find((id) => !byId.has(id))
  if (unknown !== undefined)
    throw new ValidationError('module_ids', `module_ids: ${unknown} is not a module of this course`)
  if (ids.length !== modules.length)
    throw new ValidationError('module_ids', "module_ids: must name every one of the course's modules")
  return placed(ids.map((id) => byId.get(id) as Module))
}
