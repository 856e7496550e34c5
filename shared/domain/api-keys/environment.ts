/**
 * The key's environment segment says which kind of tenant it opens: `live` for production
 * tenants, `test` for sandboxes (document 000, "Key format"). A key can never claim the other.
 */
import { RuleViolationError } from '../errors.ts'
import type { TenantKind } from '../tenants/tenant.ts'
import type { KeyEnv } from './key-format.ts'

export function keyEnvOf(kind: TenantKind): KeyEnv {
  return kind === 'sandbox' ? 'test' : 'live'
}

/** The environment asked for, checked against the tenant; the tenant's own when none is asked. */
export function keyEnvFor(kind: TenantKind, asked: KeyEnv | undefined): KeyEnv {
  const env = keyEnvOf(kind)
  if (asked !== undefined && asked !== env) {
    throw new RuleViolationError(
      'api_key.environment',
      env === 'test'
        ? 'A sandbox tenant gets test keys only'
        : 'test keys are for sandbox tenants; this tenant gets live keys',
    )
  }
  return env
}
