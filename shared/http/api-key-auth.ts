/**
 * API key authentication. A key that fails its checksum is refused without a store read; a known
 * key must be unrevoked, unexpired, of this very tenant and of its environment (test keys open
 * sandboxes only). Every refusal is the same 401, so the answer never tells which check failed.
 * Keys are read strongly consistent and never cached, so a revocation takes effect on the next
 * request. A refusal after the read counts against the client address (ip-rate-limit.ts), which is
 * refused before any read once over its limit.
 */
import { timingSafeEqual } from 'node:crypto'
import { keyEnvOf } from '../domain/api-keys/environment.ts'
import { hashKey, isWellFormedKey } from '../domain/api-keys/key-format.ts'
import { TenantInactiveError, UnauthenticatedError } from '../domain/errors.ts'
import { tenantServes } from '../domain/tenants/tenant.ts'
import { getApiKeyByHash } from '../store/tenants/api-keys-store.ts'
import { established, type MiddyRequest } from './context.ts'
import { countFailedAuthentication } from './ip-rate-limit.ts'

/** RFC 9110: the auth scheme is case-insensitive. */
const BEARER = /^bearer[ \t]+([^\s]+)[ \t]*$/i

export function bearerToken(header: string | undefined): string | undefined {
  return header ? BEARER.exec(header)?.[1] : undefined
}

export function apiKeyAuth() {
  return {
    before: async function apiKeyAuthBefore(request: MiddyRequest): Promise<void> {
      const state = request.context.lms
      const tenant = established(state.tenant, 'The tenant')
      const key = bearerToken(request.event.headers?.authorization)
      if (!key || !isWellFormedKey(key)) throw new UnauthenticatedError()
      const hash = hashKey(key)
      const record = await getApiKeyByHash(hash)
      const now = Date.now()
      if (
        !record ||
        !timingSafeEqual(Buffer.from(record.hash, 'hex'), Buffer.from(hash, 'hex')) ||
        record.revokedAt !== null ||
        (record.expiresAt !== null && Date.parse(record.expiresAt) <= now) ||
        record.tenantId !== tenant.id ||
        // A live key never opens a sandbox, nor a test key a production tenant.
        record.env !== keyEnvOf(tenant.kind)
      ) {
        await countFailedAuthentication(request.event.requestContext.http.sourceIp, now)
        throw new UnauthenticatedError()
      }
      if (!tenantServes(tenant.status)) throw new TenantInactiveError(tenant.status)
      state.keyId = record.id
      state.actor = { scopes: new Set(record.scopes) }
    },
  }
}
