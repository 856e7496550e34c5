/**
 * AGS score passback (decision 0050). A launch whose AGS claim names a line item links the
 * enrollment to it; the relay turns each progress or completion event of a linked enrollment into a
 * queued score; the worker claims the score (a late "in progress" never follows a completion), gets
 * a token and posts it, every URL through the SSRF guard. A post the platform may take later (a
 * network failure, 408, 429, 5xx) is tried again as a delayed message; after the last attempt the
 * message is left to SQS, which moves it to the dead-letter queue once its receives are spent (there
 * an operator redrives it, docs/operations.md). A score the platform refuses (another 4xx) is
 * dropped with a log line: trying it again would change nothing.
 */
import * as v from 'valibot'
import { config } from '../../config.ts'
import {
  lineItemOf,
  mayHaveLink,
  retryDelaySeconds,
  SCORE_CONTENT_TYPE,
  scoreBody,
  scoreAnswerOf,
  scoreMark,
  scoresUrl,
  scoreTriggerOf,
  scoreUpdateOf,
  type ScoreUpdate,
} from '../../domain/lti/ags.ts'
import type { LtiRegistration } from '../../domain/lti/lti.ts'
import type { Tenant, TenantContext } from '../../domain/tenants/tenant.ts'
import { log } from '../../log.ts'
import { sendOutbound } from '../../net/outbound-http.ts'
import { sendMessage } from '../../queue/sqs.ts'
import { getEnrollment } from '../../store/enrollments/enrollments-store.ts'
import { listUserEnrollments } from '../../store/enrollments/enrollments-list.ts'
import {
  claimScore,
  deleteAgsLinks,
  getAgsLink,
  keepAgsLink,
  type AgsLink,
} from '../../store/lti/lti-ags-store.ts'
import { getRegistration } from '../../store/lti/lti-store.ts'
import type { PendingEvent } from '../../store/outbox/outbox-store.ts'
import { tenantById } from '../tenants/tenant-cache.ts'
import type { VerifiedMessage } from './lti-launch-service.ts'
import { forgetScoreToken, PlatformTokenRefused, scoreToken } from './lti-platform-tokens.ts'

/** Attempts of one score before it is left to SQS and its dead-letter queue. */
export const MAX_SCORE_ATTEMPTS = 5
const POST_TIMEOUT_MS = 10_000

/** The scores queue's message: attempt `attempt` of one score of one enrollment. */
export const AgsScoreMessage = v.object({
  tenantId: v.pipe(v.string(), v.nonEmpty()),
  enrollmentId: v.pipe(v.string(), v.nonEmpty()),
  at: v.pipe(v.string(), v.nonEmpty()),
  completed: v.boolean(),
  scoreGiven: v.number(),
  attempt: v.pipe(v.number(), v.integer(), v.minValue(1)),
})
export type AgsScoreMessage = v.InferOutput<typeof AgsScoreMessage>

/** Left to SQS: the message comes back, then moves to the dead-letter queue. */
export class ScoreNotPosted extends Error {
  constructor(reason: string) {
    super(`The score was not posted: ${reason}`)
    this.name = 'ScoreNotPosted'
  }
}

/** At launch: the enrollment's scores go to the line item the launch names (when it names one). */
export async function linkLineItem(
  tenant: TenantContext,
  message: VerifiedMessage,
  enrollmentId: string | undefined,
): Promise<void> {
  const lineItem = lineItemOf(message.claims)
  const sub = message.claims.sub
  if (!lineItem || !enrollmentId || typeof sub !== 'string') return
  await keepAgsLink(tenant, {
    enrollmentId,
    registrationId: message.registration.id,
    sub,
    lineItem,
    linkedAt: new Date().toISOString(),
  })
}

/**
 * A learner erased: their enrollments' links go, with the platform user id each keeps, so no score
 * is posted for them again (a score already queued finds no link and ends unposted).
 */
export async function unlinkScoresOf(tenant: TenantContext, userId: string): Promise<void> {
  const enrollments = await listUserEnrollments(tenant, userId)
  await deleteAgsLinks(
    tenant,
    enrollments.map((e) => e.id),
  )
}

function enqueue(msg: AgsScoreMessage, delaySeconds = 0): Promise<void> {
  return sendMessage(config.agsQueueUrl, msg, delaySeconds)
}

/**
 * The relay's fan-out: a score for a progress or completion event of a linked enrollment. The
 * link is read only for an event whose enrollment said it has one (mayHaveLink): most say not.
 * @returns 1 when a score was queued
 */
export async function fanOutScores(
  tenant: Tenant,
  pending: Pick<PendingEvent, 'event' | 'scoresLinked'>,
): Promise<number> {
  const trigger = scoreTriggerOf(pending.event)
  if (!trigger || !mayHaveLink(pending.scoresLinked)) return 0
  if (!(await getAgsLink(tenant, trigger.enrollmentId))) return 0
  // A completed enrollment's score no longer moves: read when it is queued.
  const completedScore =
    trigger.kind === 'completed'
      ? ((await getEnrollment(tenant, trigger.enrollmentId, { consistent: true }))?.score ?? null)
      : null
  const update = scoreUpdateOf(trigger, completedScore)
  await enqueue({ tenantId: tenant.id, enrollmentId: trigger.enrollmentId, ...update, attempt: 1 })
  return 1
}

type PostOutcome = 'posted' | 'superseded' | 'unlinked' | 'refused' | Failed
/** A failure worth another attempt; `retryAfter` is the platform's header, when it sent one. */
interface Failed {
  readonly failed: string
  readonly retryAfter?: string | string[]
}

/** One queued attempt; a failure queues the next, and the last one throws. @throws ScoreNotPosted */
export async function postQueuedScore(msg: AgsScoreMessage): Promise<PostOutcome> {
  const tenant = await tenantById(msg.tenantId)
  if (!tenant) return 'unlinked'
  const outcome = await postScore(tenant, msg.enrollmentId, msg)
  const ids = { tenantId: msg.tenantId, enrollmentId: msg.enrollmentId, attempt: msg.attempt }
  if (typeof outcome === 'object' && 'refused' in outcome) {
    // Ids and the status only: never the platform user or the line item.
    log('error', 'ags score refused by the platform, dropped', { ...ids, reason: outcome.refused })
    return 'refused'
  }
  if (typeof outcome === 'string') return outcome
  if (msg.attempt >= MAX_SCORE_ATTEMPTS) throw new ScoreNotPosted(outcome.failed)
  log('info', 'ags score not posted, retrying', { ...ids, reason: outcome.failed })
  const delay = retryDelaySeconds(config.agsRetryDelays[msg.attempt - 1] ?? 0, outcome.retryAfter)
  await enqueue({ ...msg, attempt: msg.attempt + 1 }, delay)
  return outcome
}

type Posted = Exclude<PostOutcome, 'refused'> | { readonly refused: string }

async function postScore(tenant: TenantContext, enrollmentId: string, update: ScoreUpdate): Promise<Posted> {
  const link = await getAgsLink(tenant, enrollmentId)
  if (!link) return 'unlinked'
  const registration = await getRegistration(tenant, link.registrationId)
  // A registration switched off, or one that never had a token endpoint, takes no scores.
  if (!registration?.isActive || !registration.tokenUrl) return 'unlinked'
  if (!(await claimScore(tenant, enrollmentId, link.lineItem, scoreMark(update)))) return 'superseded'
  const first = await postWithToken(tenant, registration, link, update)
  if (first !== 'token_stale') return first
  // 401: the cached token may be stale (revoked, expired early). A new one, and one more post.
  forgetScoreToken(tenant, registration)
  const second = await postWithToken(tenant, registration, link, update)
  return second === 'token_stale' ? { refused: 'http_401 with a new token' } : second
}

async function postWithToken(
  tenant: TenantContext,
  registration: LtiRegistration,
  link: AgsLink,
  update: ScoreUpdate,
): Promise<Posted | 'token_stale'> {
  let token: string
  try {
    token = await scoreToken(tenant, registration)
  } catch (err) {
    if (err instanceof PlatformTokenRefused) return { failed: `token: ${err.reason}` }
    throw err
  }
  const res = await send(link, update, token)
  if (res.kind === 'failure') return { failed: `${res.reason}: ${res.message}` }
  const answer = scoreAnswerOf(res.status)
  if (answer === 'retry') return { failed: `http_${res.status}`, retryAfter: res.headers['retry-after'] }
  if (answer === 'refused') return { refused: `http_${res.status}` }
  return answer
}

function send(link: AgsLink, update: ScoreUpdate, token: string) {
  return sendOutbound({
    url: scoresUrl(link.lineItem),
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': SCORE_CONTENT_TYPE },
    body: Buffer.from(JSON.stringify(scoreBody(link.sub, update))),
    timeoutMs: POST_TIMEOUT_MS,
    guard: { allowLoopback: config.allowLoopbackTargets },
  })
}
