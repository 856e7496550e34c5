import type { Enrollment } from '../../shared/domain/enrollments/enrollment.ts'
import type { ProgressView } from '../../shared/domain/enrollments/progress.ts'

export function toEnrollmentResource(e: Enrollment) {
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
export function toCourseEnrollmentItem(e: Enrollment) {
  const overApi = e.channel === 'api' || e.channel === 'bulk'
  return { ...toEnrollmentResource(e), source: overApi && e.source === 'native' ? 'api' : e.source }
}

export function toCompletion(e: Enrollment) {
  return {
    id: e.id,
    user_id: e.userId,
    course_id: e.courseId,
    status: e.status,
    completed_at: e.completedAt,
    source: e.source,
  }
}

export function toProgress(p: ProgressView) {
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
