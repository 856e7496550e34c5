/**
 * The settings every AWS client of the product is built with, in one place (docs/decisions/0013).
 * Where the calls go is the SDK's own business: the region's endpoint, or `AWS_ENDPOINT_URL` /
 * `AWS_ENDPOINT_URL_<SERVICE>` when set (the local stack, LocalStack). Who signs is the SDK's
 * default credentials chain (the Lambda's role, from its environment).
 *
 * Each call has a time limit on connecting and on the whole answer, so a call never waits forever;
 * retries are the SDK's standard mode (backoff with jitter, a retry budget shared by the client's
 * calls, the service's throttling codes and retry hints). Connections are kept alive and shared
 * (at most 50 a host, the SDK's default), since a warm Lambda calls the same hosts again and again.
 */
import { config } from '../config.ts'

/** How long one attempt of a call may take, by the kind of call. */
export interface CallLimits {
  /** Attempts in all, the first included. */
  readonly maxAttempts: number
  /** Milliseconds to open a connection. */
  readonly connectionTimeoutMs: number
  /** Milliseconds for the whole answer of one attempt. */
  readonly requestTimeoutMs: number
}

/**
 * A table read or write, a message queued, a secret read: milliseconds in AWS. Three attempts of
 * 3 s at most, with backoff, stay well inside API Gateway's 29 s.
 */
export const quickCall: CallLimits = { maxAttempts: 3, connectionTimeoutMs: 1_000, requestTimeoutMs: 3_000 }

/** An e-mail sent: SES answers in well under a second, but its worker has minutes to spare. */
export const mailCall: CallLimits = { maxAttempts: 3, connectionTimeoutMs: 1_000, requestTimeoutMs: 5_000 }

/** A 5 MiB part of an export file, or a module package: seconds, not milliseconds. */
export const transferCall: CallLimits = {
  maxAttempts: 3,
  connectionTimeoutMs: 1_000,
  requestTimeoutMs: 60_000,
}

/** The options of one client: region, attempts, standard retries, time limits, kept-alive connections. */
export function clientOptions(limits: CallLimits) {
  // The embedded stack's servers run on the same (often busy) machine as the tests: config gives
  // them a longer limit, so a slow answer there is not taken for a lost one.
  const requestTimeout = Math.max(limits.requestTimeoutMs, config.awsRequestTimeoutMs ?? 0)
  const agent = { keepAlive: true, maxSockets: 50 }
  return {
    region: config.region,
    maxAttempts: limits.maxAttempts,
    retryMode: 'standard',
    requestHandler: {
      connectionTimeout: limits.connectionTimeoutMs,
      requestTimeout,
      throwOnRequestTimeout: true,
      httpsAgent: agent,
      httpAgent: agent,
    },
  } as const
}
