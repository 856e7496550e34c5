/** Progress and completion, computed from the course's modules and the learner's activity. */
import type { Module } from '../courses/module.ts'
import type { Enrollment, ModuleProgress } from './enrollment.ts'

export const notStarted: ModuleProgress = {
  status: 'not_started',
  score: null,
  timeSpentSeconds: 0,
  startedAt: null,
  completedAt: null,
  lastActivityAt: null,
}

/** Required modules decide completion; a course with no required module counts all of them. */
function countedModules(modules: readonly Module[]): readonly Module[] {
  const required = modules.filter((m) => m.isRequired)
  return required.length > 0 ? required : modules
}

export function progressPercent(
  modules: readonly Module[],
  progress: Readonly<Record<string, ModuleProgress>>,
): number {
  const counted = countedModules(modules)
  if (counted.length === 0) return 0
  const done = counted.filter((m) => progress[m.id]?.status === 'completed').length
  return Math.round((done * 100) / counted.length)
}

/** Complete when every required module is completed (and there is at least one module). */
export function isComplete(
  modules: readonly Module[],
  progress: Readonly<Record<string, ModuleProgress>>,
): boolean {
  const counted = countedModules(modules)
  return counted.length > 0 && counted.every((m) => progress[m.id]?.status === 'completed')
}

/** The enrollment's score: the mean of the scores its modules reported, or null when none did. */
export function enrollmentScore(progress: Readonly<Record<string, ModuleProgress>>): number | null {
  const scores = Object.values(progress)
    .map((p) => p.score)
    .filter((s): s is number => s !== null)
  if (scores.length === 0) return null
  return Math.round((scores.reduce((a, b) => a + b, 0) / scores.length) * 100) / 100
}

export interface ProgressView {
  readonly enrollmentId: string
  readonly overallProgressPercent: number
  readonly timeSpentSeconds: number
  readonly lastActivityAt: string | null
  readonly modules: readonly {
    readonly module: Module
    readonly progress: ModuleProgress
  }[]
}

export function progressView(enrollment: Enrollment, modules: readonly Module[]): ProgressView {
  return {
    enrollmentId: enrollment.id,
    overallProgressPercent:
      enrollment.status === 'completed' ? 100 : progressPercent(modules, enrollment.modules),
    timeSpentSeconds: enrollment.timeSpentSeconds,
    lastActivityAt: enrollment.lastActivityAt,
    modules: modules.map((module) => ({ module, progress: enrollment.modules[module.id] ?? notStarted })),
  }
}

/** Certificates carry a readable number; the enrollment id keeps it unique. */
export function certificateNumber(enrollmentId: string, issuedAt: string): string {
  return `CERT-${issuedAt.slice(0, 4)}-${enrollmentId.replace(/-/g, '').slice(0, 10).toUpperCase()}`
}

export function certificateExpiry(issuedAt: string, validityDays: number | null): string | null {
  if (validityDays === null) return null
  return new Date(Date.parse(issuedAt) + validityDays * 86_400_000).toISOString()
}

/** The certificate a completion issues: its own record, besides the fields on the enrollment. */
export interface Certificate {
  readonly id: string
  readonly number: string
  readonly userId: string
  readonly courseId: string
  readonly enrollmentId: string
  readonly issuedAt: string
  readonly expiresAt: string | null
}

/** The certificate a change issues: the one `after` holds and `before` did not (see completeEnrollment). */
export function issuedCertificate(before: Enrollment, after: Enrollment): Certificate | undefined {
  if (after.certificateId === null || after.certificateId === before.certificateId) return undefined
  return {
    id: after.certificateId,
    number: after.certificateNumber ?? '',
    userId: after.userId,
    courseId: after.courseId,
    enrollmentId: after.id,
    issuedAt: after.completedAt ?? after.updatedAt,
    expiresAt: after.certificateExpiresAt,
  }
}

export interface ActivityChange {
  readonly moduleId: string
  readonly kind: 'start' | 'progress' | 'complete'
  readonly score?: number | null
  readonly timeSpentSeconds?: number
  readonly at: string
}

/**
 * Activity can arrive out of order (a backdated `--at`, a package syncing late): a start is the
 * earliest activity and the last activity the latest, whatever order they were recorded in.
 * Timestamps are normalized ISO UTC, so they compare as strings.
 */
const earliest = (kept: string | null, at: string) => (kept !== null && kept < at ? kept : at)
const latest = (kept: string | null, at: string) => (kept !== null && kept > at ? kept : at)

/** The learner's activity applied to the enrollment: module state, time, progress. */
export function applyActivity(e: Enrollment, modules: readonly Module[], change: ActivityChange): Enrollment {
  const before = e.modules[change.moduleId] ?? notStarted
  const added = change.timeSpentSeconds ?? 0
  const completing = change.kind === 'complete' && before.status !== 'completed'
  const moduleState: ModuleProgress = {
    status: before.status === 'completed' || change.kind === 'complete' ? 'completed' : 'in_progress',
    score: change.score !== undefined && change.score !== null ? change.score : before.score,
    timeSpentSeconds: before.timeSpentSeconds + added,
    startedAt: earliest(before.startedAt, change.at),
    completedAt: completing ? change.at : before.completedAt,
    lastActivityAt: latest(before.lastActivityAt, change.at),
  }
  const nextModules = { ...e.modules, [change.moduleId]: moduleState }
  return {
    ...e,
    modules: nextModules,
    startedAt: earliest(e.startedAt, change.at),
    timeSpentSeconds: e.timeSpentSeconds + added,
    lastActivityAt: latest(e.lastActivityAt, change.at),
    progressPercent: progressPercent(modules, nextModules),
    score: enrollmentScore(nextModules),
    updatedAt: change.at,
  }
}

/** When every required module is done: completed, with its certificate. */
export function completeEnrollment(
  e: Enrollment,
  at: string,
  certificateId: string,
  validityDays: number | null,
): Enrollment & { readonly certificateNumber: string } {
  return {
    ...e,
    status: 'completed',
    completedAt: at,
    progressPercent: 100,
    passFail: 'pass',
    holdsSeat: false,
    certificateId,
    certificateNumber: certificateNumber(e.id, at),
    certificateExpiresAt: certificateExpiry(at, validityDays),
    updatedAt: at,
  }
}

/**
 * An enrollment after a module of its course was deleted: that module's progress goes and the
 * percent and score follow the modules left. A completed enrollment keeps its record as it was.
 * Undefined when nothing changes.
 */
export function withoutModuleProgress(
  e: Enrollment,
  modules: readonly Module[],
  moduleId: string,
  at: string,
): Enrollment | undefined {
  if (e.status === 'completed') return undefined
  const left = Object.fromEntries(Object.entries(e.modules).filter(([id]) => id !== moduleId))
  const percent = progressPercent(modules, left)
  if (!(moduleId in e.modules) && percent === e.progressPercent) return undefined
  return { ...e, modules: left, progressPercent: percent, score: enrollmentScore(left), updatedAt: at }
}
