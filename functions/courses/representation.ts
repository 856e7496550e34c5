import type { Course } from '../../shared/domain/courses/course.ts'
import type { Module } from '../../shared/domain/courses/module.ts'

export function toCourseListItem(c: Course) {
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

export function toCourseResource(c: Course) {
  return { ...toCourseListItem(c), description: c.description, current_version_id: c.currentVersionId }
}

export function toModuleResource(m: Module) {
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
