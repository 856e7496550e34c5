/** How a course and a module read over the API; the types are inferred from the schemas the OpenAPI document shows. */
import * as v from 'valibot'
import { courseStatuses, type Course } from '../../shared/domain/courses/course.ts'
import { moduleTypes, type Module } from '../../shared/domain/courses/module.ts'

export const CourseListItemSchema = v.object({
  id: v.string(),
  title: v.string(),
  short_description: v.string(),
  status: v.picklist(courseStatuses),
  category_id: v.nullable(v.string()),
  estimated_minutes: v.number(),
  published_at: v.nullable(v.string()),
  created_at: v.string(),
  updated_at: v.string(),
  enrollment_count: v.number(),
})

export const CourseSchema = v.object({
  ...CourseListItemSchema.entries,
  description: v.nullable(v.string()),
  current_version_id: v.nullable(v.string()),
})

export const ModuleSchema = v.object({
  id: v.string(),
  title: v.string(),
  description: v.nullable(v.string()),
  module_type: v.picklist(moduleTypes),
  is_required: v.boolean(),
  order_index: v.number(),
  created_at: v.string(),
})

export function toCourseListItem(c: Course): v.InferOutput<typeof CourseListItemSchema> {
  return {
    id: c.id,
    title: c.title,
    short_description: c.shortDescription,
    status: c.status,
    category_id: c.categoryId,
    estimated_minutes: c.estimatedMinutes,
    published_at: c.publishedAt,
    created_at: c.createdAt,
    updated_at: c.updatedAt,
    enrollment_count: c.enrollmentCount,
  }
}

export function toCourseResource(c: Course): v.InferOutput<typeof CourseSchema> {
  return { ...toCourseListItem(c), description: c.description, current_version_id: c.currentVersionId }
}

export function toModuleResource(m: Module): v.InferOutput<typeof ModuleSchema> {
  return {
    id: m.id,
    title: m.title,
    description: m.description,
    module_type: m.moduleType,
    is_required: m.isRequired,
    order_index: m.orderIndex,
    created_at: m.createdAt,
  }
}

/** `GET|PATCH /courses/{id}/settings`: the contract's names (api-additions section 4). */
export const CourseSettingsSchema = v.object({
  requires_approval: v.boolean(),
  seat_limit: v.nullable(v.number()),
  waitlist: v.boolean(),
  enrollment_opens_at: v.nullable(v.string()),
  enrollment_closes_at: v.nullable(v.string()),
  prerequisite_course_ids: v.array(v.string()),
  category: v.nullable(v.string()),
  language: v.string(),
  certificate_validity_days: v.nullable(v.number()),
  access_days: v.nullable(v.number()),
  ceu: v.number(),
})

export function toCourseSettingsResource(
  c: Course,
  categoryName: string | null,
): v.InferOutput<typeof CourseSettingsSchema> {
  const s = c.settings
  return {
    requires_approval: s.requiresApproval,
    seat_limit: s.seatLimit,
    waitlist: s.waitlist,
    enrollment_opens_at: s.enrollmentOpensAt,
    enrollment_closes_at: s.enrollmentClosesAt,
    prerequisite_course_ids: [...s.prerequisites],
    category: categoryName,
    language: s.language,
    certificate_validity_days: s.certificateValidityDays,
    access_days: s.accessDays,
    ceu: s.ceu,
  }
}

/** What `lms course configure` prints: the settings the API does not expose. */
export function toCourseSettings(c: Course, categoryName: string | null) {
  const s = c.settings
  return {
    course_id: c.id,
    requires_approval: s.requiresApproval,
    seat_limit: s.seatLimit,
    waitlist: s.waitlist,
    enrollment_opens_at: s.enrollmentOpensAt,
    enrollment_closes_at: s.enrollmentClosesAt,
    prerequisites: [...s.prerequisites],
    category_id: c.categoryId,
    category: categoryName,
    language: s.language,
    certificate_validity_days: s.certificateValidityDays,
    ceu: s.ceu,
    requires_session_selection: s.requiresSessionSelection,
    access_days: s.accessDays,
    // Shown once a course grants a skill (the skills feature), so earlier readers see no change.
    ...(s.grantsSkill
      ? { grants_skill: { skill_id: s.grantsSkill.skillId, level: s.grantsSkill.level } }
      : {}),
  }
}
