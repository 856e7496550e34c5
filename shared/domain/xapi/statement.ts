/**
 * xAPI 1.0.3 statements built from outbox events: which events make one, the actor, the object,
 * the context and the result. Pure: the caller supplies the portal, the e-mail and the ids.
 */
import { createHash } from 'node:crypto'
import type { DomainEvent } from '../../domain/events.ts'
import { CMI5_CATEGORY, CMI5_EXTENSIONS } from './cmi5.ts'
import type { IdentityMode } from './connection.ts'

export const XAPI_VERSION = '1.0.3'
/** `context.platform`: the service that produced the statement. */
export const PLATFORM = 'lms'

const VERBS = {
  completed: 'http://adlnet.gov/expapi/verbs/completed',
  passed: 'http://adlnet.gov/expapi/verbs/passed',
  failed: 'http://adlnet.gov/expapi/verbs/failed',
  // cmi5: the LMS's own statements for a cmi5 module (launch, move-on criteria met).
  launched: 'http://adlnet.gov/expapi/verbs/launched',
  satisfied: 'https://w3id.org/xapi/adl/verbs/satisfied',
} as const
export type Verb = keyof typeof VERBS

const ACTIVITY_TYPES = {
  module: 'http://adlnet.gov/expapi/activities/module',
  course: 'http://adlnet.gov/expapi/activities/course',
} as const

interface Score {
  readonly raw: number
  readonly max: number
  readonly scaled: number
}

/** What a statement is about, read from the event that records the activity. */
export type StatementSource =
  | {
      readonly kind: 'module_completed'
      readonly enrollmentId: string
      readonly userId: string
      readonly courseId: string
      readonly moduleId: string
      /** The module's reported score (0..100), or null when it reported none. */
      readonly score: number | null
      /** Pass/fail as the package reported it, or null when it reported none. */
      readonly success: boolean | null
      /** A quiz module: the passing attempt. */
      readonly attempt: Score | null
      /** A cmi5 module completes when its move-on criteria are met: "satisfied". */
      readonly cmi5: boolean
    }
  | {
      readonly kind: 'cmi5_launched'
      readonly enrollmentId: string
      readonly userId: string
      readonly courseId: string
      readonly moduleId: string
      readonly sessionId: string
    }
  | {
      /** A statement a cmi5 unit sent, forwarded as sent but for the actor. */
      readonly kind: 'forwarded'
      readonly enrollmentId: string
      readonly userId: string
      readonly courseId: string
      readonly moduleId: string
      readonly statement: Readonly<Record<string, unknown>>
    }
  | {
      readonly kind: 'quiz_graded'
      readonly enrollmentId: string
      readonly userId: string
      readonly courseId: string
      readonly moduleId: string
      readonly score: Score
      readonly passed: boolean
    }
  | {
      readonly kind: 'course_completed'
      readonly enrollmentId: string
      readonly userId: string
      readonly courseId: string
    }

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined)
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined)

function scoreOf(v: unknown): Score | null {
  if (typeof v !== 'object' || v === null) return null
  const o = v as Record<string, unknown>
  const raw = num(o.raw)
  const max = num(o.max)
  const scaled = num(o.scaled)
  return raw === undefined || max === undefined || scaled === undefined ? null : { raw, max, scaled }
}

/** The statement an event makes, or undefined for an event that makes none. */
export function statementSourceOf(event: DomainEvent): StatementSource | undefined {
  const d = event.data
  const enrollmentId = str(d.enrollmentId)
  const userId = str(d.userId)
  const courseId = str(d.courseId)
  if (!enrollmentId || !userId || !courseId) return undefined
  const ids = { enrollmentId, userId, courseId }
  switch (event.event) {
    case 'module.completed': {
      const moduleId = str(d.moduleId)
      if (!moduleId) return undefined
      return {
        kind: 'module_completed',
        ...ids,
        moduleId,
        score: num(d.score) ?? null,
        success: typeof d.success === 'boolean' ? d.success : null,
        attempt: scoreOf(d.attempt),
        cmi5: d.moduleType === 'cmi5',
      }
    }
    case 'cmi5.launched': {
      const moduleId = str(d.moduleId)
      const sessionId = str(d.sessionId)
      if (!moduleId || !sessionId) return undefined
      return { kind: 'cmi5_launched', ...ids, moduleId, sessionId }
    }
    case 'cmi5.statement': {
      // Kept as JSON text in the event: a stored map would not keep the unit's key order.
      const moduleId = str(d.moduleId)
      const statement = typeof d.statement === 'string' ? (JSON.parse(d.statement) as unknown) : undefined
      if (!moduleId || typeof statement !== 'object' || statement === null) return undefined
      return { kind: 'forwarded', ...ids, moduleId, statement: statement as Record<string, unknown> }
    }
    case 'quiz_attempt.graded': {
      const moduleId = str(d.moduleId)
      const score = scoreOf(d)
      if (!moduleId || !score || typeof d.passed !== 'boolean') return undefined
      return { kind: 'quiz_graded', ...ids, moduleId, score, passed: d.passed }
    }
    case 'enrollment.completed':
      return { kind: 'course_completed', ...ids }
    default:
      return undefined
  }
}

/** `https://<slug>.<serviceHost>`: the homePage of anonymous accounts and the activity ids' base. */
export function portalBase(slug: string, serviceHost: string): string {
  return `https://${slug}.${serviceHost}`
}

export const moduleActivityId = (portal: string, moduleId: string) =>
  `${portal}/xapi/activities/module/${encodeURIComponent(moduleId)}`
export const courseActivityId = (portal: string, courseId: string) =>
  `${portal}/xapi/activities/course/${encodeURIComponent(courseId)}`

const USABLE_EMAIL = /^[^\s@<>()[\]\\,;:"]+@[^\s@<>()[\]\\,;:"]+\.[^\s@<>()[\]\\,;:"]+$/

export type Actor =
  | { readonly objectType: 'Agent'; readonly account: { readonly homePage: string; readonly name: string } }
  | { readonly objectType: 'Agent'; readonly mbox: string }

/**
 * Email mode sends `mailto:<email>`; anonymous mode, or a learner without a usable address, sends
 * an account (portal + user id). Never a name: the statement leaves the tenant's control.
 */
export function actorFor(
  mode: IdentityMode,
  portal: string,
  userId: string,
  email: string | undefined,
): Actor {
  const address = email?.trim().toLowerCase()
  if (mode === 'email' && address && USABLE_EMAIL.test(address)) {
    return { objectType: 'Agent', mbox: `mailto:${address}` }
  }
  return { objectType: 'Agent', account: { homePage: portal, name: userId } }
}

/**
 * The statement's id: a forwarded statement keeps the id its unit gave it; any other is fixed per
 * source event, whoever relays it and however often.
 */
export function statementIdOf(source: StatementSource, eventId: string): string {
  if (source.kind === 'forwarded' && typeof source.statement.id === 'string') return source.statement.id
  return statementIdFor(eventId)
}

/** A name-based UUID from the event id. */
export function statementIdFor(eventId: string): string {
  const h = createHash('sha256').update(`xapi/${eventId}`).digest('hex')
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((parseInt(h.slice(16, 17), 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`
}

const round4 = (n: number) => Math.round(n * 10_000) / 10_000

function resultScore(s: Score) {
  return { scaled: round4(Math.min(1, Math.max(-1, s.scaled))), raw: s.raw, min: 0, max: s.max }
}

export interface BuiltStatement {
  /** The verb's short name, for the delivery log. */
  readonly verb: string
  readonly objectId: string
  /** Serialised once: every attempt sends these bytes. */
  readonly body: string
}

export function buildStatement(input: {
  readonly source: StatementSource
  readonly statementId: string
  readonly timestamp: string
  readonly portal: string
  readonly actor: Actor
}): BuiltStatement {
  const { source, portal } = input
  if (source.kind === 'forwarded') return forwarded(source.statement, input.statementId, input.actor)
  const course = courseActivityId(portal, source.courseId)
  let verb: Verb
  let objectId: string
  let objectType: string
  let result: Record<string, unknown>
  switch (source.kind) {
    case 'module_completed':
      verb = source.cmi5 ? 'satisfied' : 'completed'
      objectId = moduleActivityId(portal, source.moduleId)
      objectType = ACTIVITY_TYPES.module
      result = source.attempt
        ? { score: resultScore(source.attempt), success: true, completion: true }
        : {
            ...(source.score !== null
              ? { score: resultScore({ raw: source.score, max: 100, scaled: source.score / 100 }) }
              : {}),
            ...(source.success !== null ? { success: source.success } : {}),
            completion: true,
          }
      break
    case 'cmi5_launched':
      verb = 'launched'
      objectId = moduleActivityId(portal, source.moduleId)
      objectType = ACTIVITY_TYPES.module
      result = {}
      break
    case 'quiz_graded':
      verb = source.passed ? 'passed' : 'failed'
      objectId = moduleActivityId(portal, source.moduleId)
      objectType = ACTIVITY_TYPES.module
      result = { score: resultScore(source.score), success: source.passed }
      break
    case 'course_completed':
      verb = 'completed'
      objectId = course
      objectType = ACTIVITY_TYPES.course
      result = { completion: true }
      break
  }
  const statement = {
    id: input.statementId,
    actor: input.actor,
    verb: { id: VERBS[verb], display: { 'en-US': verb } },
    object: { objectType: 'Activity', id: objectId, definition: { type: objectType } },
    ...(Object.keys(result).length > 0 ? { result } : {}),
    context: {
      registration: source.enrollmentId,
      platform: PLATFORM,
      // The course is the parent of its modules; a course is not its own parent.
      ...(source.kind === 'course_completed'
        ? {}
        : {
            contextActivities: {
              parent: [{ objectType: 'Activity', id: course }],
              ...(source.kind === 'cmi5_launched' || (source.kind === 'module_completed' && source.cmi5)
                ? { category: [CMI5_CATEGORY] }
                : {}),
            },
          }),
      ...(source.kind === 'cmi5_launched'
        ? {
            extensions: {
              [CMI5_EXTENSIONS.sessionId]: source.sessionId,
              [CMI5_EXTENSIONS.launchMode]: 'Normal',
            },
          }
        : {}),
    },
    timestamp: input.timestamp,
  }
  return { verb, objectId, body: JSON.stringify(statement) }
}

/** As the unit sent it, with our actor in place of whatever it named, and its id kept (or given). */
function forwarded(
  statement: Readonly<Record<string, unknown>>,
  statementId: string,
  actor: Actor,
): BuiltStatement {
  const verbId = (statement.verb as { id: string }).id
  const objectId = (statement.object as { id: string }).id
  const body = { ...statement, id: statementId, actor }
  return { verb: verbId.slice(verbId.lastIndexOf('/') + 1), objectId, body: JSON.stringify(body) }
}
