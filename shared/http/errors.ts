/**
 * The one mapping from thrown errors to HTTP: status, envelope, and the headers some statuses
 * carry. Nothing of an unexpected error (stack, store detail) reaches the response.
 */
import {
  ConflictError,
  EntitlementError,
  FeatureSwitchedOffError,
  IdempotencyInProgressError,
  NotFoundError,
  RateLimitedError,
  RuleViolationError,
  ScopeMissingError,
  ServiceUnavailableError,
  TenantInactiveError,
  UnauthenticatedError,
  ValidationError,
} from '../domain/errors.ts'
import type { HttpResult } from './context.ts'
import { errorResult } from './responses.ts'

/** Middy's own HTTP errors (the JSON body parser's) carry a statusCode and `expose`. */
function isMiddyHttpError(err: unknown): err is Error & { statusCode: number } {
  return err instanceof Error && typeof (err as { statusCode?: unknown }).statusCode === 'number'
}

export function toErrorResult(err: unknown): { result: HttpResult; unexpected: boolean } {
  const r = (result: HttpResult) => ({ result, unexpected: false })
  if (err instanceof ValidationError) return r(errorResult(400, err.message))
  if (err instanceof UnauthenticatedError)
    return r(errorResult(401, err.message, {}, { 'www-authenticate': 'Bearer' }))
  if (err instanceof ScopeMissingError) return r(errorResult(403, err.message))
  if (err instanceof TenantInactiveError) return r(errorResult(403, err.message))
  if (err instanceof EntitlementError) {
    const blocked = {
      entitlement_blocked: {
        code: 'ENTITLEMENT_BLOCKED',
        flag_or_limit: err.flagOrLimit,
        current_tier: err.currentTier,
        required_tier: err.requiredTier,
      },
    }
    return r(errorResult(err.kind === 'cap' ? 422 : 403, err.message, blocked))
  }
  if (err instanceof FeatureSwitchedOffError) return r(errorResult(403, err.message, { reason: err.reason }))
  if (err instanceof NotFoundError) return r(errorResult(404, err.message))
  if (err instanceof IdempotencyInProgressError)
    return r(errorResult(409, err.message, {}, { 'retry-after': String(err.retryAfterSeconds) }))
  if (err instanceof ConflictError) return r(errorResult(409, err.message))
  if (err instanceof RuleViolationError) return r(errorResult(422, err.message))
  if (err instanceof RateLimitedError) {
    return r(errorResult(429, err.message, {}, { 'retry-after': String(err.retryAfterSeconds) }))
  }
  if (err instanceof ServiceUnavailableError) {
    return r(errorResult(503, err.message, {}, { 'retry-after': String(err.retryAfterSeconds) }))
  }
  if (isMiddyHttpError(err) && err.statusCode < 500) {
    // The body parser answers 415/422 for an unreadable body; to our callers that is a bad request.
    return r(errorResult(400, 'body: must be valid JSON'))
  }
  return { result: errorResult(500, 'Internal server error'), unexpected: true }
}
