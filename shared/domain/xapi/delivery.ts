/** The statement delivery log: statuses, attempts, and which answers are worth another try. */
import type { OutboundResult } from '../../net/outbound-http.ts'

export const statementStatuses = ['pending', 'delivered', 'failed'] as const
export type StatementStatus = (typeof statementStatuses)[number]

export interface StatementDelivery {
  /** The statement id: fixed per source event, the same on every attempt and every retry. */
  readonly id: string
  readonly eventId: string
  /** The connection the statement was made for; another connection never sends it. */
  readonly connectionId: string
  /**
   * The store and actor form the body was built for: a manual retry may move the row to a later
   * connection only when both are the same (the bytes are sent as they are).
   */
  readonly madeFor: { readonly endpoint: string; readonly identityMode: string }
  readonly verb: string
  readonly objectId: string
  readonly userId: string
  readonly enrollmentId: string
  readonly status: StatementStatus
  readonly attempts: number
  readonly httpStatus: number | null
  readonly reason: string | null
  /** The exact bytes sent on every attempt. */
  readonly body: string
  /** How many times an operator re-queued it after it failed. */
  readonly manualRetries: number
  readonly createdAt: string
  readonly updatedAt: string
  /** See shared/domain/attempts.ts. */
  readonly attemptRecorded: boolean
}

export const MAX_ATTEMPTS = 5
/** `lms lrs retry --all` re-queues at most this many failed statements per call. */
export const RETRY_ALL_LIMIT = 500

export type Outcome =
  | { readonly kind: 'delivered' }
  | { readonly kind: 'retry'; readonly reason: string }
  | { readonly kind: 'stop'; readonly reason: string }

/**
 * 2xx delivers. Network errors, timeouts, 5xx, 408 and 429 are worth another attempt. 400, 401,
 * 403 and 409 stop at once (the spec's list), and so does any other 4xx: the same bytes to the
 * same endpoint with the same credentials would get the same refusal. A target the SSRF guard
 * refuses at connect time stops too.
 */
export function classify(result: OutboundResult): Outcome {
  if (result.kind === 'failure') {
    return result.reason === 'refused'
      ? { kind: 'stop', reason: 'refused' }
      : { kind: 'retry', reason: result.reason }
  }
  const s = result.status
  if (s >= 200 && s < 300) return { kind: 'delivered' }
  if (s >= 500 || s === 408 || s === 429) return { kind: 'retry', reason: `http_${s}` }
  return { kind: 'stop', reason: `http_${s}` }
}

/** Seconds to wait before attempt n+1 after attempt n failed; undefined after the last. */
export function retryDelay(attemptsMade: number, delays: readonly number[]): number | undefined {
  if (attemptsMade >= MAX_ATTEMPTS) return undefined
  return delays[attemptsMade - 1]
}
