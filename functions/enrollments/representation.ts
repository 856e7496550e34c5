/** How enrollments, completions and progress read over the API; the types are inferred from the schemas the OpenAPI document shows. */
import * as v from 'valibot'
import {
  enrollmentStatuses,
  refusalCodes,
  type Enrollment,
} from '../../shared/domain/enrollments/enrollment.ts'
import type { ProgressView } from '../../shared/domain/enrollments/progress.ts'

const Status = v.picklist(enrollmentStatuses)
const Source = v.picklist(['native', 'import'])

export const EnrollmentSchema = v.object({
  id: v.string(),
  user_id: v.string(),
  course_id: v.string(),
  status: Status,
  due_date: v.nullable(v.string()),
  completed_at: v.nullable(v.string()),
  source: Source,
  created_at: v.string(),
  progress_percent: v.number(),
  score: v.nullable(v.number()),
  pass_fail: v.nullable(v.picklist(['pass', 'fail'])),
  enrolled_at: v.string(),
  started_at: v.nullable(v.string()),
  certificate_id: v.nullable(v.string()),
  updated_at: v.string(),
  access_expires_at: v.nullable(v.string()),
})

export const CourseEnrollmentItemSchema = v.object({
  ...EnrollmentSchema.entries,
  source: v.picklist(['native', 'import', 'api']),
})

export const CompletionSchema = v.object({
  id: v.string(),
  user_id: v.string(),
  course_id: v.string(),
  status: Status,
  completed_at: v.nullable(v.string()),
  source: Source,
})

export const ProgressSchema = v.object({
  enrollment_id: v.string(),
  overall_progress_percent: v.number(),
  time_spent_seconds: v.number(),
  last_activity_at: v.nullable(v.string()),
  modules: v.array(
    v.object({
      module_id: v.string(),
      module_title: v.string(),
      status: v.picklist(['not_started', 'in_progress', 'completed']),
      score: v.nullable(v.number()),
      time_spent_seconds: v.number(),
      completed_at: v.nullable(v.string()),
    }),
  ),
})

/** POST /enrollments/bulk: 201 when every row enrolled, 207 with each refused row's index and reason. */
export const BulkResultSchema = v.object({
  created: v.number(),
  skipped: v.number(),
  errors: v.array(
    v.object({ index: v.number(), code: v.picklist([...refusalCodes, 'invalid_row']), message: v.string() }),
  ),
  enrollments: v.array(v.object({ index: v.number(), id: v.string(), status: Status })),
})
export type BulkResult = v.InferOutput<typeof BulkResultSchema>

export function toEnrollmentResource(e: Enrollment): v.InferOutput<typeof EnrollmentSchema> {
  return {
    id: e.id,
    user_id: e.userId,
    course_id: e.courseId,
    status: e.status,
    due_date: e.dueDate,
    completed_at: e.completedAt,
    source: e.source,
    created_at: e.createdAt,
    progress_percent: e.progressPercent,
    score: e.score,
    pass_fail: e.passFail,
    enrolled_at: e.enrolledAt,
    started_at: e.startedAt,
    certificate_id: e.certificateId,
    updated_at: e.updatedAt,
    // An addition: when an active enrollment's access ends (the course's access days), or null.
    access_expires_at: e.accessExpiresAt,
  }
}

/** Course enrollment listings show `api` as the source of enrollments made over the REST API (bulk too). */
export function toCourseEnrollmentItem(e: Enrollment): v.InferOutput<typeof CourseEnrollmentItemSchema> {
  const overApi = e.channel === 'api' || e.channel === 'bulk'
  return { ...toEnrollmentResource(e), source: overApi && e.source === 'native' ? 'api' : e.source }
}

export function toCompletion(e: Enrollment): v.InferOutput<typeof CompletionSchema> {
  return {
    id: e.id,
    user_id: e.userId,
    course_id: e.courseId,
    status: e.status,
    completed_at: e.completedAt,
    source: e.source,
  }
}

export function toProgress(p: ProgressView): v.InferOutput<typeof ProgressSchema> {
  return {
    enrollment_id: p.enrollmentId,
    overall_progress_percent: p.overallProgressPercent,
    time_spent_seconds: p.timeSpentSeconds,
    last_activity_at: p.lastActivityAt,
    modules: p.modules.map(({ module, progress }) => ({
      module_id: module.id,
      module_title: module.title,
      status: progress.status,
      score: progress.score,
      time_spent_seconds: progress.timeSpentSeconds,
      completed_at: progress.completedAt,
    })),
  }
}
