/**
 * Authenticating a request's API key on the tenant of its Host. A key that fails its checksum is
 * refused without a read; a known key must admit the request (key-admission.ts). Every refusal is
 * the same UnauthenticatedError, so the answer never tells which check failed; a refusal after the
 * read counts against the client address (failed-authentications.ts), which turns it into a 429
 * once the address is over its limit. Keys are read strongly consistent and never cached, so a
 * revocation takes effect on the next request.
 */
import { keyAdmits } from '../../domain/api-keys/key-admission.ts'
import { hashKey, isWellFormedKey } from '../../domain/api-keys/key-format.ts'
import { TenantInactiveError, UnauthenticatedError } from '../../domain/errors.ts'
import { tenantServes, type Tenant } from '../../domain/tenants/tenant.ts'
import type { Scope } from '../../routes.ts'
import { getApiKeyByHash } from '../../store/tenants/api-keys-store.ts'
import { countFailedAuthentication } from './failed-authentications.ts'

export interface AuthenticatedKey {
  readonly id: string
  /** The key's visible prefix, as listed to its tenant. */
  readonly prefix: string
  readonly scopes: readonly Scope[]
}

export interface PresentedKey {
  /** The bearer token as sent, if any. */
  readonly key: string | undefined
  /** The tenant of the request's Host. */
  readonly tenant: Tenant
  readonly clientAddress: string
}

/**
 * @example const { id, scopes } = await authenticateApiKey({ key, tenant, clientAddress })
 * @throws UnauthenticatedError for any refused key; RateLimitedError when the address is over its
 * failed-authentication limit; TenantInactiveError for a good key on a tenant that does not serve
 */
export async function authenticateApiKey(presented: PresentedKey): Promise<AuthenticatedKey> {
  const { key, tenant, clientAddress } = presented
  if (!key || !isWellFormedKey(key)) throw new UnauthenticatedError()
  const hash = hashKey(key)
  const stored = await getApiKeyByHash(hash)
  const now = Date.now()
  if (!stored || !keyAdmits(stored, hash, tenant, now)) {
    await countFailedAuthentication(clientAddress, now)
    throw new UnauthenticatedError()
  }
  if (!tenantServes(tenant.status)) throw new TenantInactiveError(tenant.status)
  return { id: stored.id, prefix: stored.prefix, scopes: stored.scopes }
}
