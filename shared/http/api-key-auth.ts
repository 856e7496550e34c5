/**
 * API key authentication: the bearer token, checked on the Host's tenant by the key service
 * (shared/services/tenants/api-key-auth-service.ts), which answers every refusal with the same 401
 * and counts a refusal after its read against the client address (ip-rate-limit.ts refuses an
 * address over that limit before any read).
 */
import { authenticateApiKey } from '../services/tenants/api-key-auth-service.ts'
import { established, type MiddyRequest } from './context.ts'

/** RFC 9110: the auth scheme is case-insensitive. */
const BEARER = /^bearer[ \t]+([^\s]+)[ \t]*$/i

export function bearerToken(header: string | undefined): string | undefined {
  return header ? BEARER.exec(header)?.[1] : undefined
}

export function apiKeyAuth() {
  return {
    before: async function apiKeyAuthBefore(request: MiddyRequest): Promise<void> {
      const state = request.context.lms
      const key = await authenticateApiKey({
        key: bearerToken(request.event.headers?.authorization),
        tenant: established(state.tenant, 'The tenant'),
        clientAddress: request.event.requestContext.http.sourceIp,
      })
      state.keyId = key.id
      state.keyPrefix = key.prefix
      state.actor = { scopes: new Set(key.scopes) }
    },
  }
}
