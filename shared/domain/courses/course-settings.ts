/**
 * A course's settings as the API reads and changes them (`/courses/{id}/settings`, api-additions
 * section 4): the same settings `lms course configure` sets, under the contract's names.
 */
import * as v from 'valibot'
import { ValidationError } from '../errors.ts'
import { Timestamp, Uuid } from '../validation.ts'
import { CategoryName, CourseLanguage, type CourseSettings } from './course.ts'

const Days = v.pipe(v.number(), v.integer('must be a whole number'), v.minValue(1), v.maxValue(36_500))

/** Every field optional; unknown fields are refused (a misspelt setting must not pass silently). */
export const CourseSettingsInput = v.strictObject({
  requires_approval: v.optional(v.boolean()),
  seat_limit: v.optional(
    v.nullable(v.pipe(v.number(), v.integer('must be a whole number'), v.minValue(1), v.maxValue(1_000_000))),
  ),
  waitlist: v.optional(v.boolean()),
  enrollment_opens_at: v.optional(v.nullable(Timestamp)),
  enrollment_closes_at: v.optional(v.nullable(Timestamp)),
  prerequisite_course_ids: v.optional(v.pipe(v.array(Uuid), v.maxLength(50, 'must hold at most 50 ids'))),
  category: v.optional(CategoryName),
  language: v.optional(CourseLanguage),
  certificate_validity_days: v.optional(v.nullable(Days)),
  access_days: v.optional(v.nullable(Days)),
  ceu: v.optional(v.pipe(v.number(), v.minValue(0), v.maxValue(10_000))),
})
export type CourseSettingsInput = v.InferOutput<typeof CourseSettingsInput>

export type SettingsChanges = Partial<CourseSettings> & { category?: string }

/** The API body as the changes `configureCourse` takes (absent fields: unchanged). */
export function settingsChangesOf(input: CourseSettingsInput): SettingsChanges {
  const changes: Record<string, unknown> = {
    requiresApproval: input.requires_approval,
    seatLimit: input.seat_limit,
    waitlist: input.waitlist,
    enrollmentOpensAt: input.enrollment_opens_at,
    enrollmentClosesAt: input.enrollment_closes_at,
    prerequisites: input.prerequisite_course_ids && [...new Set(input.prerequisite_course_ids)],
    category: input.category,
    language: input.language,
    certificateValidityDays: input.certificate_validity_days,
    accessDays: input.access_days,
    ceu: input.ceu,
  }
  return Object.fromEntries(Object.entries(changes).filter(([, x]) => x !== undefined)) as SettingsChanges
}

/**
 * The window the settings leave: it must close after it opens. Checked on the settings after the
 * change, so moving one end alone is refused when it crosses the other.
 */
export function assertEnrollmentWindow(s: CourseSettings): void {
  if (
    s.enrollmentOpensAt !== null &&
    s.enrollmentClosesAt !== null &&
    s.enrollmentClosesAt <= s.enrollmentOpensAt
  )
    throw new ValidationError(
      'enrollment_closes_at',
      'enrollment_closes_at must be after enrollment_opens_at',
    )
}
