/**
 * The transcript: a learner's courses (and, once they exist, learning paths) with totals. Filters
 * follow the spec: completed_after drops unfinished records; year is the completion year, or the
 * enrollment year for unfinished ones; totals are over the items returned.
 */
import type { Enrollment, EnrollmentStatus } from '../../domain/enrollments/enrollment.ts'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import { getCourseSummaries } from '../../store/courses/courses-store.ts'
import { listUserEnrollments } from '../../store/enrollments/enrollments-list.ts'

export interface TranscriptFilters {
  readonly completedAfter?: string
  readonly completedBefore?: string
  readonly status?: 'completed' | 'in_progress' | 'other' | 'all'
  readonly type?: 'course' | 'path' | 'all'
  readonly year?: number
}

export interface TranscriptItem {
  readonly id: string
  readonly type: 'course' | 'path'
  readonly itemId: string
  readonly title: string
  readonly status: EnrollmentStatus
  readonly startedAt: string | null
  readonly completedAt: string | null
  readonly dueDate: string | null
  readonly expiresAt: string | null
  readonly scorePercent: number | null
  readonly timeSpentSeconds: number
  readonly progressPercent: number
  readonly certificateId: string | null
  readonly certificateNumber: string | null
  readonly ceuValue: number
  readonly ceuLabel: string
}

export interface Transcript {
  readonly userId: string
  readonly generatedAt: string
  readonly totals: {
    readonly completed: number
    readonly inProgress: number
    readonly timeSpentSeconds: number
    readonly ceuTotal: number
    readonly ceuLabel: string
    readonly certificates: number
  }
  readonly items: readonly TranscriptItem[]
}

export const CEU_LABEL = 'CEU'

const statusGroup: Record<string, (s: EnrollmentStatus) => boolean> = {
  completed: (s) => s === 'completed',
  in_progress: (s) => s === 'active',
  other: (s) => s === 'dropped' || s === 'expired',
  all: () => true,
}

function keep(e: Enrollment, f: TranscriptFilters): boolean {
  if (!statusGroup[f.status ?? 'all']?.(e.status)) return false
  if (f.completedAfter && !(e.completedAt && e.completedAt > f.completedAfter)) return false
  if (f.completedBefore && e.completedAt && !(e.completedAt < f.completedBefore)) return false
  if (f.year !== undefined && Number((e.completedAt ?? e.enrolledAt).slice(0, 4)) !== f.year) return false
  return true
}

export async function buildTranscript(
  tenant: TenantContext,
  userId: string,
  f: TranscriptFilters,
  at = new Date().toISOString(),
): Promise<Transcript> {
  const enrollments =
    f.type === 'path' ? [] : (await listUserEnrollments(tenant, userId)).filter((e) => keep(e, f))
  const courses = new Map(
    (
      await getCourseSummaries(
        tenant,
        enrollments.map((e) => e.courseId),
      )
    ).map((c) => [c.id, c]),
  )
  const items: TranscriptItem[] = enrollments
    .sort((a, b) => ((b.completedAt ?? b.enrolledAt) < (a.completedAt ?? a.enrolledAt) ? -1 : 1))
    .map((e) => {
      const course = courses.get(e.courseId)
      return {
        id: e.id,
        type: 'course',
        itemId: e.courseId,
        title: course?.title ?? '',
        status: e.status,
        startedAt: e.startedAt,
        completedAt: e.completedAt,
        dueDate: e.dueDate,
        expiresAt: e.certificateExpiresAt,
        scorePercent: e.score === null ? null : Math.round(e.score),
        timeSpentSeconds: e.timeSpentSeconds,
        progressPercent: e.progressPercent,
        certificateId: e.certificateId,
        certificateNumber: e.certificateNumber,
        ceuValue: course?.ceu ?? 0,
        ceuLabel: CEU_LABEL,
      }
    })
  const completed = items.filter((i) => i.status === 'completed')
  return {
    userId,
    generatedAt: at,
    totals: {
      completed: completed.length,
      inProgress: items.filter((i) => i.status === 'active').length,
      timeSpentSeconds: items.reduce((sum, i) => sum + i.timeSpentSeconds, 0),
      ceuTotal: Math.round(completed.reduce((sum, i) => sum + i.ceuValue, 0) * 100) / 100,
      ceuLabel: CEU_LABEL,
      certificates: items.filter((i) => i.certificateId !== null).length,
    },
    items,
  }
}
