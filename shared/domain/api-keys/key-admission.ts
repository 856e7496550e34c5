/**
 * Whether a stored key admits a request on a tenant: unrevoked, unexpired, of this very tenant and
 * of its environment (test keys open sandboxes only). It says yes or no, never which check failed,
 * so a refusal cannot tell a caller anything about the key.
 */
import { timingSafeEqual } from 'node:crypto'
import type { Tenant } from '../tenants/tenant.ts'
import { keyEnvOf } from './environment.ts'
import type { KeyEnv } from './key-format.ts'

/** What a stored key says about itself; the store's record has these fields and more. */
export interface KeyStanding {
  readonly hash: string
  readonly tenantId: string
  readonly env: KeyEnv
  readonly expiresAt: string | null
  readonly revokedAt: string | null
}

/**
 * @example keyAdmits(stored, hashKey(presented), tenant, Date.now()) // false once revoked
 */
export function keyAdmits(
  stored: KeyStanding,
  presentedHash: string,
  tenant: Pick<Tenant, 'id' | 'kind'>,
  nowMs: number,
): boolean {
  return (
    // Secrets are compared in constant time, even though the lookup was by this very hash.
    timingSafeEqual(Buffer.from(stored.hash, 'hex'), Buffer.from(presentedHash, 'hex')) &&
    stored.revokedAt === null &&
    (stored.expiresAt === null || Date.parse(stored.expiresAt) > nowMs) &&
    stored.tenantId === tenant.id &&
    // A live key never opens a sandbox, nor a test key a production tenant.
    stored.env === keyEnvOf(tenant.kind)
  )
}
