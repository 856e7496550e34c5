/** Courses, their settings and the status state machine: draft ⇄ published → archived. */
import * as v from 'valibot'
import { RuleViolationError } from '../errors.ts'
import { text, textRules } from '../text-rules.ts'
import { Timestamp } from '../validation.ts'
import type { SkillLevel } from '../skills/skill.ts'

export const courseStatuses = ['draft', 'published', 'archived'] as const
export type CourseStatus = (typeof courseStatuses)[number]

/** What the API does not expose; set with `lms course configure`. */
export interface CourseSettings {
  readonly requiresApproval: boolean
  readonly seatLimit: number | null
  readonly waitlist: boolean
  readonly enrollmentOpensAt: string | null
  readonly enrollmentClosesAt: string | null
  readonly prerequisites: readonly string[]
  readonly language: string
  readonly certificateValidityDays: number | null
  readonly ceu: number
  /** An instructor-led series whose session must be chosen in the app. */
  readonly requiresSessionSelection: boolean
  /** Days of access an enrollment gets from the moment it becomes active; null: no end. */
  readonly accessDays: number | null
  /** Completing the course raises the learner's skill to this level (source `completion`). */
  readonly grantsSkill: SkillGrant | null
}

export interface SkillGrant {
  readonly skillId: string
  readonly level: SkillLevel
}

export const defaultSettings: CourseSettings = {
  requiresApproval: false,
  seatLimit: null,
  waitlist: false,
  enrollmentOpensAt: null,
  enrollmentClosesAt: null,
  prerequisites: [],
  language: 'en',
  certificateValidityDays: null,
  ceu: 0,
  requiresSessionSelection: false,
  accessDays: null,
  grantsSkill: null,
}

export interface Course {
  readonly id: string
  readonly title: string
  readonly description: string | null
  readonly shortDescription: string
  readonly status: CourseStatus
  readonly categoryId: string | null
  readonly estimatedMinutes: number
  readonly currentVersionId: string | null
  readonly publishedAt: string | null
  readonly createdAt: string
  readonly updatedAt: string
  readonly enrollmentCount: number
  readonly moduleCount: number
  readonly seatsTaken: number
  readonly settings: CourseSettings
}

export type Transition =
  | { readonly kind: 'none' }
  | { readonly kind: 'publish' }
  | { readonly kind: 'unpublish' }
  | { readonly kind: 'archive'; readonly wasPublished: boolean }

/**
 * The state machine. Re-publishing a published course changes nothing (and is never gated);
 * nothing leaves archived (the spec shows no way out).
 */
export function transition(from: CourseStatus, to: CourseStatus): Transition {
  if (from === to) return { kind: 'none' }
  if (from === 'archived') {
    throw new RuleViolationError('course.archived', 'An archived course cannot change status')
  }
  if (to === 'published') return { kind: 'publish' }
  if (to === 'draft') return { kind: 'unpublish' }
  return { kind: 'archive', wasPublished: from === 'published' }
}

export function windowIsOpen(settings: CourseSettings, at: string): boolean {
  if (settings.enrollmentOpensAt && at < settings.enrollmentOpensAt) return false
  if (settings.enrollmentClosesAt && at > settings.enrollmentClosesAt) return false
  return true
}

const Title = text(textRules.courseTitle, { trimmed: true, required: true })
const Description = v.nullable(text(textRules.courseDescription))
const ShortDescription = text(textRules.shortDescription)
const Minutes = v.pipe(v.number(), v.integer('must be an integer'), v.minValue(0), v.maxValue(1_000_000))

export const CreateCourseInput = v.object({
  title: Title,
  description: v.optional(Description),
  short_description: v.optional(ShortDescription),
  estimated_minutes: v.optional(Minutes),
})
export type CreateCourseInput = v.InferOutput<typeof CreateCourseInput>

export const UpdateCourseInput = v.object({
  ...v.partial(CreateCourseInput).entries,
  status: v.optional(v.picklist(courseStatuses, 'must be draft, published or archived')),
})
export type UpdateCourseInput = v.InferOutput<typeof UpdateCourseInput>

export const ListCoursesFilters = v.object({
  status: v.optional(v.picklist(courseStatuses, 'must be draft, published or archived')),
  category: v.optional(text(textRules.categoryName)),
  search: v.optional(text(textRules.searchQuery)),
  created_after: v.optional(Timestamp),
})

/** A course's language, as `lms course configure --language` takes it: a BCP 47 tag (`en`, `fr-CA`). */
export const CourseLanguage = v.pipe(
  v.string(),
  v.trim(),
  v.maxLength(35, 'must be at most 35 characters'),
  v.regex(/^[a-z]{2,3}(?:-[a-z0-9]{1,8})*$/i, 'must be a language tag such as en or fr-CA'),
)

/** A category name, as `lms course configure --category` and `lms category create` take it. */
export const CategoryName = text(textRules.categoryName, { trimmed: true, required: true })

export const courseSorts = ['created_at', 'title', 'updated_at'] as const
export type CourseSort = (typeof courseSorts)[number]
