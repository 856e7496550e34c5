/**
 * Typed errors, thrown anywhere. They carry a stable `code` and know nothing of HTTP:
 * `shared/http/errors.ts` is the one place that maps them to a status and the envelope.
 */

export abstract class DomainError extends Error {
  abstract readonly code: string
  constructor(message: string, options?: ErrorOptions) {
    super(message, options)
    this.name = new.target.name
  }
}

/** Bad input; `field` names what failed (`email`, `custom_fields.badge`, `query.sort_by`). */
export class ValidationError extends DomainError {
  readonly code = 'request.invalid'
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message)
  }
}

/** Absent in this tenant (another tenant's id is absent too). */
export class NotFoundError extends DomainError {
  readonly code: string
  constructor(readonly resource: string) {
    super(`${resource.charAt(0).toUpperCase()}${resource.slice(1).replace(/_/g, ' ')} not found`)
    this.code = `${resource}.not_found`
  }
}

export class ConflictError extends DomainError {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message)
  }
}

/** The same Idempotency-Key's first request is still running: 409, the client repeats it shortly. */
export class IdempotencyInProgressError extends ConflictError {
  readonly retryAfterSeconds = 1
  constructor() {
    super('idempotency.in_progress', 'A request with this Idempotency-Key is still running; retry shortly')
  }
}

/** A business rule refused the request (dynamic group edit, completed enrollment delete, ...). */
export class RuleViolationError extends DomainError {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message)
  }
}

export type PlanId = 'free' | 'starter' | 'growth' | 'enterprise'

/**
 * A plan limit or feature refused the request. A cap (seat, course) is a business-rule refusal;
 * a missing feature (API access, skills) is a permission refusal.
 */
export class EntitlementError extends DomainError {
  readonly code = 'entitlement.blocked'
  constructor(
    readonly kind: 'cap' | 'feature',
    readonly flagOrLimit: string,
    readonly currentTier: PlanId,
    readonly requiredTier: PlanId,
    message: string,
  ) {
    super(message)
  }
}

export class UnauthenticatedError extends DomainError {
  constructor(
    readonly code = 'auth.invalid_key',
    message = 'Invalid or missing API key',
  ) {
    super(message)
  }
}

export class ScopeMissingError extends DomainError {
  readonly code = 'auth.scope_missing'
  constructor(readonly scope: string) {
    super(`API key lacks the ${scope} scope`)
  }
}

export class RateLimitedError extends DomainError {
  readonly code: string
  constructor(
    /**
     * minute: a key's window; address: a client address's window on a keyless route;
     * authentication: a client address's failed authentications on the keyed routes.
     */
    readonly kind: 'minute' | 'monthly' | 'address' | 'authentication',
    readonly retryAfterSeconds: number,
  ) {
    super(
      {
        minute: 'Rate limit exceeded',
        monthly: 'Monthly API usage cap exceeded',
        address: 'Rate limit exceeded',
        authentication: 'Too many failed authentications from this address',
      }[kind],
    )
    this.code = {
      minute: 'rate_limit.exceeded',
      monthly: 'rate_limit.monthly_cap',
      address: 'rate_limit.address',
      authentication: 'rate_limit.authentication',
    }[kind]
  }
}

/**
 * The store refused or failed in a way the caller may retry (throttling, a hot item that stayed
 * locked through the retries, a request out of time): 503 with `Retry-After`.
 */
export class ServiceUnavailableError extends DomainError {
  readonly code: string = 'service.unavailable'
  /** The seconds a client should wait before repeating the request. */
  readonly retryAfterSeconds: number
  constructor(options?: ErrorOptions & { retryAfterSeconds?: number }) {
    super('The service is temporarily unavailable; retry shortly', options)
    this.retryAfterSeconds = options?.retryAfterSeconds ?? 1
  }
}

/**
 * The request ran out of its function's time (the early timeout of the Middy stack), most often
 * because the store queued its writes behind others on a hot item: what was saved stays saved,
 * and the repeated request finds it (a drop twice is a no-op, a create twice a 409).
 */
export class RequestTimedOutError extends ServiceUnavailableError {
  override readonly code = 'service.timed_out'
  constructor() {
    super({ retryAfterSeconds: 2 })
  }
}

/** The tenant exists but does not serve requests (suspended, cancelled). */
export class TenantInactiveError extends DomainError {
  readonly code = 'tenant.inactive'
  constructor(readonly status: string) {
    super(`This tenant is ${status} and does not accept API requests`)
  }
}

/**
 * The plan includes the feature but the organization switched it off (skills planning):
 * 403 with `reason`, so a client tells "upgrade" from "ask your admin to turn it on".
 */
export class FeatureSwitchedOffError extends DomainError {
  readonly code = 'feature.switched_off'
  constructor(
    readonly reason: string,
    message: string,
  ) {
    super(message)
  }
}
