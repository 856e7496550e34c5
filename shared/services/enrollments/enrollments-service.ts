/** Enrollments over the API: single and bulk creation, reads, due date, unenroll, progress. */
import {
  refusalMessages,
  type Enrollment,
  type EnrollmentChannel,
  type RefusalCode,
} from '../../domain/enrollments/enrollment.ts'
import { progressView, type ProgressView } from '../../domain/enrollments/progress.ts'
import { ConflictError, NotFoundError, RuleViolationError } from '../../domain/errors.ts'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import { newEvent, noEffects, type Effects } from '../../domain/events.ts'
import { listModules } from '../../store/courses/courses-store.ts'
import {
  listCompletions as listStoredCompletions,
  listEnrollments as listStored,
  type EnrollmentListQuery,
} from '../../store/enrollments/enrollments-list.ts'
import { getEnrollment as getStored, saveEnrollment } from '../../store/enrollments/enrollments-store.ts'
import { isStale, retryOnConflict } from '../../store/core/optimistic.ts'
import { memberUserIds } from '../groups/groups-service.ts'
import { enroll, type EnrollRow, type RowResult } from './enrollment-engine.ts'
import { promoteAfterSeatFreed } from './waitlist-promotion.ts'

const nowIso = () => new Date().toISOString()

/** The single routes' answer for a refused row: 404, 409 or 422. */
export function refusalError(code: RefusalCode): Error {
  if (code === 'user_not_found') return new NotFoundError('user')
  if (code === 'course_not_found') return new NotFoundError('course')
  if (code === 'duplicate') return new ConflictError('enrollment.duplicate', refusalMessages.duplicate)
  return new RuleViolationError(`enrollment.${code}`, refusalMessages[code])
}

export async function createEnrollment(
  tenant: TenantContext,
  row: EnrollRow,
  channel: EnrollmentChannel = 'api',
): Promise<Enrollment> {
  const [result] = await enroll(tenant, [row], channel)
  if (!result) throw new Error('The engine returned no result')
  if ('error' in result) throw refusalError(result.error)
  return result.ok
}

export function bulkEnroll(tenant: TenantContext, rows: readonly EnrollRow[]): Promise<RowResult[]> {
  return enroll(tenant, rows, 'bulk')
}

export async function getEnrollment(tenant: TenantContext, id: string): Promise<Enrollment> {
  const e = await getStored(tenant, id)
  if (!e) throw new NotFoundError('enrollment')
  return e
}

export async function listEnrollments(
  tenant: TenantContext,
  q: Omit<EnrollmentListQuery, 'userIds'> & { groupId?: string },
): Promise<{ items: Enrollment[]; total: number }> {
  if (!q.groupId) return listStored(tenant, q)
  const members = await memberUserIds(tenant, q.groupId)
  if (!members || members.size === 0) return { items: [], total: 0 }
  return listStored(tenant, { ...q, userIds: members })
}

export function listCompletions(
  tenant: TenantContext,
  q: { userId?: string; offset: number; limit: number },
) {
  return listStoredCompletions(tenant, q)
}

/** An enrollment's next state and what the change causes; undefined when nothing changes. */
export type NextEnrollment = (
  current: Enrollment,
) => { readonly enrollment: Enrollment; readonly effects: Effects } | undefined

export interface ChangeOptions {
  /**
   * Set when the caller's retry runs the promotion again (a repeated drop): a store that stays
   * overloaded during the promotion is then a 503, not a seat left free until the next change.
   */
  readonly surfaceUnavailablePromotion?: boolean
}

/**
 * Applies `next` to the current enrollment; re-reads and re-applies when it changed meanwhile. A
 * change that frees a seat (drop, completion, expiry) then promotes one learner from the course's
 * waitlist into it.
 */
export async function changeEnrollment(
  tenant: TenantContext,
  id: string,
  next: NextEnrollment,
  { surfaceUnavailablePromotion = false }: ChangeOptions = {},
): Promise<Enrollment> {
  let freed: { before: Enrollment; after: Enrollment } | undefined
  let saved: Enrollment
  try {
    saved = await retryOnConflict(async () => {
      const current = await getEnrollment(tenant, id)
      const change = next(current)
      if (!change) return current
      await saveEnrollment(tenant, { before: current, after: change.enrollment, effects: change.effects })
      freed =
        current.holdsSeat && !change.enrollment.holdsSeat
          ? { before: current, after: change.enrollment }
          : undefined
      return change.enrollment
    })
  } catch (err) {
    if (!isStale(err)) throw err
    throw new ConflictError('enrollment.concurrent_update', 'The enrollment changed meanwhile; retry')
  }
  if (freed) {
    await promoteAfterSeatFreed(tenant, freed.after.courseId, freed.after.updatedAt, {
      atMost: 1,
      surfaceUnavailable: surfaceUnavailablePromotion,
    })
  }
  return saved
}

export function setDueDate(tenant: TenantContext, id: string, dueDate: string | null, at = nowIso()) {
  return changeEnrollment(tenant, id, (current) => ({
    enrollment: { ...current, dueDate, updatedAt: at },
    effects: noEffects,
  }))
}

/**
 * DELETE: the record is kept with status `dropped` (its seat freed) and enrollment.dropped is
 * written. A completed enrollment is permanent transcript history: 422. Dropping twice changes
 * nothing, but runs the promotion again: a drop answered 503 because the store stayed overloaded
 * while it promoted (the drop itself saved) is retried by its client, and the retry fills the seat.
 */
export async function dropEnrollment(tenant: TenantContext, id: string, at = nowIso()): Promise<Enrollment> {
  let repeated = false
  const saved = await changeEnrollment(
    tenant,
    id,
    (current) => {
      if (current.status === 'completed') {
        throw new RuleViolationError(
          'enrollment.completed',
          'A completed enrollment is permanent transcript history',
        )
      }
      repeated = current.status === 'dropped'
      if (repeated) return undefined
      const event = newEvent(
        'enrollment.dropped',
        { enrollmentId: current.id, userId: current.userId, courseId: current.courseId },
        at,
      )
      return {
        enrollment: { ...current, status: 'dropped', holdsSeat: false, updatedAt: at },
        effects: { events: [event] },
      }
    },
    { surfaceUnavailablePromotion: true },
  )
  if (repeated) {
    await promoteAfterSeatFreed(tenant, saved.courseId, at, { atMost: 1, surfaceUnavailable: true })
  }
  return saved
}

export async function getProgress(tenant: TenantContext, id: string): Promise<ProgressView> {
  const enrollment = await getEnrollment(tenant, id)
  return progressView(enrollment, await listModules(tenant, enrollment.courseId))
}
