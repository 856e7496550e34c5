/**
 * What the learner app does (the CLI stands in for it): module activity, archive downloads,
 * graded quiz attempts, and completion with its certificate; plus historical completion imports.
 */
import type { SkillGrant } from '../../domain/courses/course.ts'
import { completionRaise, type HeldSkill } from '../../domain/skills/skill.ts'
import { getHeldSkill } from '../../store/skills/skills-store.ts'
import { randomUUID } from 'node:crypto'
import type { Module } from '../../domain/courses/module.ts'
import type { Enrollment } from '../../domain/enrollments/enrollment.ts'
import {
  applyActivity,
  completeEnrollment,
  isComplete,
  progressView,
  type ActivityChange,
  type ProgressView,
} from '../../domain/enrollments/progress.ts'
import { ConflictError, NotFoundError, RuleViolationError, ValidationError } from '../../domain/errors.ts'
import { utcInstant } from '../../domain/validation.ts'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import { unitStatement } from '../../domain/xapi/cmi5.ts'
import { statementIdFor } from '../../domain/xapi/statement.ts'
import { newEvent, noEffects, type DomainEvent, type Effects } from '../../domain/events.ts'
import { appendEvent } from '../../store/outbox/outbox-store.ts'
import { modulePackageSize, presignModulePackage } from '../../store/files/content-store.ts'
import { getCourse, listModules } from '../../store/courses/courses-store.ts'
import { getPairs, insertEnrollments, pairKey } from '../../store/enrollments/enrollments-store.ts'
import { WriteRefused } from '../../store/core/store-errors.ts'
import { retryOnConflict } from '../../store/core/optimistic.ts'
import { getUser } from '../../store/users/users-store.ts'
import { changeEnrollment, getEnrollment } from './enrollments-service.ts'

const nowIso = () => new Date().toISOString()

export interface ActivityInput {
  readonly moduleId: string
  readonly kind: ActivityChange['kind']
  readonly score?: number | null
  /** Pass/fail as a package reported it on completion (SCORM, AICC, cmi5); absent when it did not. */
  readonly passed?: boolean
  readonly timeSpentSeconds?: number
  readonly at?: string
}

function findModule(modules: readonly Module[], moduleId: string): Module {
  const module = modules.find((m) => m.id === moduleId)
  if (!module) throw new NotFoundError('module')
  return module
}

/**
 * The learning events a record store is told about (graded attempt, module completed), written
 * in the activity's own transaction so a statement can never be lost between saved and sent.
 * Internal events: not in the webhook catalog.
 */
function learningEvents(
  before: Enrollment,
  after: Enrollment,
  change: ActivityChange,
  reported: Reported,
): DomainEvent[] {
  const { module, attempt } = reported
  const ids = {
    enrollmentId: after.id,
    userId: after.userId,
    courseId: after.courseId,
    moduleId: change.moduleId,
  }
  const score = attempt ? { raw: attempt.raw, max: attempt.max, scaled: attempt.scaled } : undefined
  const events: DomainEvent[] = []
  if (change.kind === 'start' && module.moduleType === 'cmi5') {
    // Every launch of a cmi5 unit opens a session the unit's own statements will name.
    events.push(newEvent('cmi5.launched', { ...ids, sessionId: randomUUID() }, change.at))
  }
  if (attempt && score) {
    events.push(newEvent('quiz_attempt.graded', { ...ids, ...score, passed: attempt.passed }, change.at))
  }
  const wasDone = before.modules[change.moduleId]?.status === 'completed'
  const moduleState = after.modules[change.moduleId]
  if (!wasDone && moduleState?.status === 'completed') {
    events.push(
      newEvent(
        'module.completed',
        {
          ...ids,
          moduleType: module.moduleType,
          score: moduleState.score,
          success: reported.success ?? null,
          attempt: attempt?.passed ? score : null,
          // The enrollment's progress after it: the LTI score it makes (decision 0050).
          progressPercent: after.progressPercent,
        },
        change.at,
      ),
    )
  }
  return events
}

/** What the activity's module reported beyond progress: a graded attempt, pass/fail. */
interface Reported {
  readonly module: Module
  readonly attempt?: Enrollment['quizAttempts'][number]
  readonly success?: boolean
}

/**
 * The activity, and completion when it finishes the last required module (the store writes the
 * certificate the completed enrollment holds).
 */
function nextState(
  current: Enrollment,
  modules: readonly Module[],
  change: ActivityChange,
  validityDays: number | null,
  reported: Reported,
  skillGrant: SkillGrantContext | undefined = undefined,
): { enrollment: Enrollment; effects: Effects } {
  const { attempt } = reported
  if (current.status !== 'active') {
    throw new RuleViolationError(
      'enrollment.not_active',
      `The enrollment is ${current.status}; only active enrollments record activity`,
    )
  }
  let next = applyActivity(current, modules, change)
  if (attempt) next = { ...next, quizAttempts: [...next.quizAttempts, attempt] }
  const events = learningEvents(current, next, change, reported)
  if (isComplete(modules, next.modules)) {
    const certificateId = randomUUID()
    const completed = completeEnrollment(next, change.at, certificateId, validityDays)
    next = completed
    const ids = { userId: next.userId, courseId: next.courseId }
    events.push(
      newEvent('enrollment.completed', { enrollmentId: next.id, ...ids, completedAt: change.at }, change.at),
      newEvent(
        'certificate.issued',
        { certificateId, certificateNumber: completed.certificateNumber, ...ids },
        change.at,
      ),
    )
    const raise = skillGrant && completionRaise(skillGrant.grant, next.userId, skillGrant.held, change.at)
    if (raise) {
      events.push(newEvent('skill.attained', raise.attained, change.at))
      return { enrollment: next, effects: { events, skillLevels: [raise.change] } }
    }
  }
  return { enrollment: next, effects: { events } }
}

export async function recordActivity(
  tenant: TenantContext,
  enrollmentId: string,
  input: ActivityInput,
): Promise<ProgressView> {
  const at = input.at ?? nowIso()
  if (input.score !== undefined && input.score !== null && !(input.score >= 0 && input.score <= 100)) {
    throw new ValidationError('score', 'score must be between 0 and 100')
  }
  const ctx = await activityContext(tenant, enrollmentId, input.moduleId)
  return applyActivityTo(tenant, ctx, activityChange(ctx.module, input, at), {
    module: ctx.module,
    success: input.kind === 'complete' ? input.passed : undefined,
  })
}

/** What an activity acts on: the enrollment, its course's modules and settings, and the module. */
interface ActivityContext {
  readonly enrollment: Enrollment
  readonly modules: readonly Module[]
  readonly module: Module
  readonly validityDays: number | null
  /** The skill the course grants on completion, with the learner's hold on it as read. */
  readonly skillGrant?: SkillGrantContext
}

interface SkillGrantContext {
  readonly grant: SkillGrant
  readonly held: HeldSkill | undefined
}

async function activityContext(
  tenant: TenantContext,
  enrollmentId: string,
  moduleId: string,
): Promise<ActivityContext> {
  const enrollment = await getEnrollment(tenant, enrollmentId)
  const [modules, course] = await Promise.all([
    listModules(tenant, enrollment.courseId),
    getCourse(tenant, enrollment.courseId),
  ])
  const grant = course?.settings.grantsSkill ?? null
  return {
    enrollment,
    modules,
    module: findModule(modules, moduleId),
    validityDays: course?.settings.certificateValidityDays ?? null,
    ...(grant
      ? { skillGrant: { grant, held: await getHeldSkill(tenant, enrollment.userId, grant.skillId) } }
      : {}),
  }
}

const activityChange = (
  module: Module,
  input: Omit<ActivityInput, 'moduleId'>,
  at: string,
): ActivityChange => ({
  moduleId: module.id,
  kind: input.kind,
  score: input.score,
  timeSpentSeconds: input.timeSpentSeconds,
  at,
})

/** Saves the change (re-applied to a fresh copy if the enrollment changed meanwhile). */
async function applyActivityTo(
  tenant: TenantContext,
  ctx: ActivityContext,
  change: ActivityChange,
  reported: Reported,
): Promise<ProgressView> {
  const saved = await changeEnrollment(tenant, ctx.enrollment.id, (current) =>
    nextState(current, ctx.modules, change, ctx.validityDays, reported, ctx.skillGrant),
  )
  return progressView(saved, ctx.modules)
}

/** How long a package download link works: long enough to start a large download, no longer. */
export const DOWNLOAD_LINK_SECONDS = 15 * 60

export interface Download {
  readonly url: string
  readonly expiresAt: string
  readonly progress: ProgressView
}

/**
 * An archive module is delivered as-is, through a pre-signed URL that forces a download, and
 * completes on its first download. No package yet: 404, and nothing is recorded.
 */
export async function recordDownload(
  tenant: TenantContext,
  enrollmentId: string,
  moduleId: string,
  at = nowIso(),
): Promise<Download> {
  const ctx = await activityContext(tenant, enrollmentId, moduleId)
  const { module } = ctx
  if (module.moduleType !== 'archive') {
    throw new RuleViolationError('module.not_archive', 'Only archive modules are downloaded')
  }
  if ((await modulePackageSize(tenant, module.id)) === undefined) throw new NotFoundError('module_package')
  const progress = await applyActivityTo(tenant, ctx, activityChange(module, { kind: 'complete' }, at), {
    module,
  })
  const url = await presignModulePackage(tenant, module.id, `${module.title}.zip`, DOWNLOAD_LINK_SECONDS)
  return { url, expiresAt: new Date(Date.now() + DOWNLOAD_LINK_SECONDS * 1000).toISOString(), progress }
}

/**
 * A statement a launched cmi5 unit sent: recorded as an event, so the record store receives it
 * exactly as sent (our actor in place of the unit's) when, and only when, one is connected.
 */
export async function forwardUnitStatement(
  tenant: TenantContext,
  enrollmentId: string,
  moduleId: string,
  statementJson: string,
  at = nowIso(),
): Promise<{ statementId: string }> {
  const statement = unitStatement(statementJson)
  const { enrollment, module } = await activityContext(tenant, enrollmentId, moduleId)
  if (module.moduleType !== 'cmi5') {
    throw new RuleViolationError('module.not_cmi5', 'Only cmi5 units send statements')
  }
  const ids = { enrollmentId, userId: enrollment.userId, courseId: enrollment.courseId, moduleId }
  const event = newEvent('cmi5.statement', { ...ids, statement: JSON.stringify(statement) }, at)
  await appendEvent(tenant, event)
  return { statementId: typeof statement.id === 'string' ? statement.id : statementIdFor(event.id) }
}

export interface QuizAttemptInput {
  readonly moduleId: string
  readonly raw: number
  readonly max: number
  /** Scaled score (0..1) needed to pass; the course's quiz setting, 0.7 by default. */
  readonly passingScaled?: number
  readonly timeSpentSeconds?: number
  readonly at?: string
}

/** A graded attempt; a passing one completes the quiz module with that attempt's score. */
export async function gradeQuizAttempt(tenant: TenantContext, enrollmentId: string, input: QuizAttemptInput) {
  const at = input.at ?? nowIso()
  if (!(input.max > 0) || !(input.raw >= 0) || input.raw > input.max) {
    throw new ValidationError('score', 'score must be between 0 and max, and max above 0')
  }
  const ctx = await activityContext(tenant, enrollmentId, input.moduleId)
  const { module } = ctx
  if (module.moduleType !== 'quiz')
    throw new RuleViolationError('module.not_quiz', 'Only quiz modules are graded')
  const scaled = Math.round((input.raw / input.max) * 10_000) / 10_000
  const passed = scaled >= (input.passingScaled ?? 0.7)
  const attempt = { moduleId: module.id, raw: input.raw, max: input.max, scaled, passed, gradedAt: at }
  const change = activityChange(
    module,
    {
      kind: passed ? 'complete' : 'progress',
      score: passed ? Math.round(scaled * 10_000) / 100 : null,
      timeSpentSeconds: input.timeSpentSeconds,
    },
    at,
  )
  return { attempt, progress: await applyActivityTo(tenant, ctx, change, { module, attempt }) }
}

export interface ImportInput {
  readonly userId: string
  readonly courseId: string
  readonly completedAt: string
  readonly score?: number | null
}

/**
 * A completion from a previous system: a completed enrollment with source `import` and the
 * original date. History, not news: no events, no notification, no certificate.
 */
export async function importCompletion(tenant: TenantContext, input: ImportInput): Promise<Enrollment> {
  if (input.score !== undefined && input.score !== null && !(input.score >= 0 && input.score <= 100)) {
    throw new ValidationError('score', 'score must be between 0 and 100')
  }
  const completedAt = utcInstant(input.completedAt)
  if (completedAt === undefined || completedAt > nowIso()) {
    throw new ValidationError('completed_at', 'completed_at must be a past ISO 8601 timestamp')
  }
  const [user, course, pairs] = await Promise.all([
    getUser(tenant, input.userId),
    getCourse(tenant, input.courseId),
    getPairs(tenant, [input]),
  ])
  if (!user) throw new NotFoundError('user')
  if (!course) throw new NotFoundError('course')
  if (pairs.get(pairKey(input.userId, input.courseId))) {
    throw new ConflictError('enrollment.duplicate', 'The user already has an enrollment in this course')
  }
  const at = completedAt
  const enrollment: Enrollment = {
    id: randomUUID(),
    userId: input.userId,
    courseId: input.courseId,
    status: 'completed',
    dueDate: null,
    completedAt: at,
    source: 'import',
    channel: 'import',
    createdAt: at,
    enrolledAt: at,
    startedAt: at,
    updatedAt: nowIso(),
    progressPercent: 100,
    score: input.score ?? null,
    passFail: 'pass',
    certificateId: null,
    certificateNumber: null,
    certificateExpiresAt: null,
    language: course.settings.language,
    timeSpentSeconds: 0,
    lastActivityAt: at,
    holdsSeat: false,
    accessExpiresAt: null,
    modules: {},
    quizAttempts: [],
    scoresLinked: false,
  }
  try {
    // The user's latest activity may move meanwhile (a sign-in): read it again and retry.
    await retryOnConflict(
      () =>
        insertEnrollments(tenant, course.id, [{ enrollment, replaces: undefined, effects: noEffects }], {
          seatLimit: null,
          requirePublished: false,
          // History of a former user may be imported after the account was deactivated.
          requireActiveUsers: false,
        }),
      { isConflict: (err) => err instanceof WriteRefused && err.has('activity') },
    )
  } catch (err) {
    if (err instanceof WriteRefused) {
      throw new ConflictError('enrollment.duplicate', 'The user already has an enrollment in this course')
    }
    throw err
  }
  return enrollment
}
