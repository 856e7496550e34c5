/**
 * LTI Assignment and Grade Services 2.0 (decision 0050): the endpoint claim of a launch, and the
 * score the tool posts to the launch's line item when the enrollment progresses or completes.
 * Pure: the token, the post and the storage are in shared/services/lti and shared/store/lti.
 */
import type { DomainEvent } from '../events.ts'
import { LTI_URL_MAX_CHARS } from './lti.ts'

export const AGS_CLAIM = 'https://purl.imsglobal.org/spec/lti-ags/claim/endpoint'
export const AGS_SCORE_SCOPE = 'https://purl.imsglobal.org/spec/lti-ags/scope/score'
export const SCORE_CONTENT_TYPE = 'application/vnd.ims.lis.v1.score+json'
/** RFC 7523: the client authenticates with a JWT it signs (1EdTech Security Framework 4.1). */
export const CLIENT_ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer'
/** Scores are percents. */
export const SCORE_MAXIMUM = 100

/**
 * The line item of a launch whose AGS claim lets the tool post scores (its `scope` lists the score
 * scope), as an absolute http(s) URL; undefined otherwise (no claim, no `lineitem`: nothing is posted).
 */
export function lineItemOf(claims: Readonly<Record<string, unknown>>): string | undefined {
  const claim = claims[AGS_CLAIM]
  if (!claim || typeof claim !== 'object') return undefined
  const { lineitem, scope } = claim as Record<string, unknown>
  if (!Array.isArray(scope) || !scope.includes(AGS_SCORE_SCOPE)) return undefined
  if (typeof lineitem !== 'string' || lineitem.length > LTI_URL_MAX_CHARS || !URL.canParse(lineitem))
    return undefined
  const url = new URL(lineitem)
  return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : undefined
}

/** `<lineitem>/scores`, the line item's query kept (AGS 2.0, 3.4: the scores service). */
export function scoresUrl(lineItem: string): string {
  const url = new URL(lineItem)
  url.pathname = `${url.pathname.replace(/\/$/, '')}/scores`
  return url.href
}

/** What an event of the enrollment asks the platform's gradebook to show. */
export type ScoreTrigger =
  | {
      readonly kind: 'progress'
      readonly enrollmentId: string
      readonly at: string
      readonly percent: number
    }
  | { readonly kind: 'completed'; readonly enrollmentId: string; readonly at: string }

/**
 * The score an event makes: a module completed (with the enrollment's progress after it), or the
 * enrollment completed. A module completion that reached 100% completed the enrollment too, in the
 * same change and at the same instant: the completion alone is posted, so an "in progress" of the
 * same timestamp never competes with it. Events saved before progress was carried make none.
 */
export function scoreTriggerOf(event: DomainEvent): ScoreTrigger | undefined {
  const { enrollmentId, progressPercent } = event.data
  if (typeof enrollmentId !== 'string' || enrollmentId === '') return undefined
  if (event.event === 'enrollment.completed') return { kind: 'completed', enrollmentId, at: event.createdAt }
  if (event.event !== 'module.completed' || typeof progressPercent !== 'number') return undefined
  if (progressPercent >= SCORE_MAXIMUM) return undefined
  return { kind: 'progress', enrollmentId, at: event.createdAt, percent: progressPercent }
}

/**
 * Whether an event's enrollment may have an AGS link, as its outbox item says: `false` only when
 * the enrollment said it has none; null (an item written before the enrollments said so, or an
 * event not written with its enrollment) may, so its link is looked for.
 */
export const mayHaveLink = (scoresLinked: boolean | null): boolean => scoresLinked !== false

/** One score as the tool posts it; `at` is the event's time, never the time of the post. */
export interface ScoreUpdate {
  readonly at: string
  readonly completed: boolean
  readonly scoreGiven: number
}

const bounded = (n: number) => Math.min(SCORE_MAXIMUM, Math.max(0, n))

/** The update of a trigger: progress percent, or on completion the enrollment's score (100 without one). */
export function scoreUpdateOf(trigger: ScoreTrigger, completedScore: number | null): ScoreUpdate {
  if (trigger.kind === 'progress')
    return { at: trigger.at, completed: false, scoreGiven: bounded(trigger.percent) }
  return { at: trigger.at, completed: true, scoreGiven: bounded(completedScore ?? SCORE_MAXIMUM) }
}

/**
 * Orders the updates of one line item: later timestamps first, and at one timestamp a completion
 * over an "in progress". Stored with the last update claimed; a claim whose mark is lower is
 * superseded (ISO UTC timestamps of one length compare as strings).
 */
export const scoreMark = (u: ScoreUpdate): string => `${u.at}#${u.completed ? 1 : 0}`

/** The score service's body (AGS 2.0, 3.4). */
export function scoreBody(sub: string, u: ScoreUpdate) {
  return {
    userId: sub,
    scoreGiven: u.scoreGiven,
    scoreMaximum: SCORE_MAXIMUM,
    activityProgress: u.completed ? 'Completed' : 'InProgress',
    gradingProgress: u.completed ? 'FullyGraded' : 'Pending',
    timestamp: u.at,
  }
}

/**
 * What the tool does with the score service's answer: posted; `token_stale` (401: the cached token
 * may have been revoked or expired early: a new token, one more post); `refused` (any other 4xx but
 * 408 and 429: the platform will not take this score, a bad line item or a deleted context, so
 * trying again changes nothing); `retry` (408, 429, 5xx, and whatever else: later, as a delayed
 * message).
 */
export type ScoreAnswer = 'posted' | 'token_stale' | 'refused' | 'retry'

export function scoreAnswerOf(status: number): ScoreAnswer {
  if (status >= 200 && status < 300) return 'posted'
  if (status === 401) return 'token_stale'
  if (status >= 400 && status < 500 && status !== 408 && status !== 429) return 'refused'
  return 'retry'
}

/** SQS delays a message 15 minutes at most. */
const MAX_DELAY_SECONDS = 900

/**
 * The delay before the next attempt: the configured one, or longer when the platform's
 * `Retry-After` asks for it in seconds (an HTTP date is not read: the configured delay stands).
 */
export function retryDelaySeconds(configured: number, retryAfter: string | string[] | undefined): number {
  const asked = typeof retryAfter === 'string' && /^\d{1,6}$/.test(retryAfter.trim()) ? Number(retryAfter) : 0
  return Math.min(MAX_DELAY_SECONDS, Math.max(configured, asked))
}
