/**
 * Access tokens from a platform's token endpoint, for the AGS score scope (decision 0050) and the
 * NRPS membership scope (0052): the client-credentials grant with a JWT the tool signs with its
 * LTI key (1EdTech Security Framework 4.1: iss = sub = client_id, aud = the token URL, jti, exp),
 * sent through the SSRF guard. A token is kept in memory until shortly before it expires, per warm
 * container, registration and scope: never stored, so no bearer credential of a platform rests in
 * the table.
 */
import { config } from '../../config.ts'
import { AGS_SCORE_SCOPE, CLIENT_ASSERTION_TYPE } from '../../domain/lti/ags.ts'
import type { LtiRegistration } from '../../domain/lti/lti.ts'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import { sendOutbound } from '../../net/outbound-http.ts'
import { signAsTool } from './lti-keys-service.ts'

const TIMEOUT_MS = 10_000
/** A token is dropped this long before the platform says it expires (clock skew, a slow post). */
const EXPIRY_MARGIN_MS = 60_000
const ASSERTION_SECONDS = 300
const DEFAULT_EXPIRES_IN = 3600

/** The platform did not give a token: why, for the log line (never the answer's body). */
export class PlatformTokenRefused extends Error {
  constructor(readonly reason: string) {
    super(`The platform gave no token: ${reason}`)
    this.name = 'PlatformTokenRefused'
  }
}

const cache = new Map<string, { readonly token: string; readonly expiresAtMs: number }>()
const cacheKey = (tenant: TenantContext, r: LtiRegistration, scope: string) =>
  `${tenant.id}/${r.id}/${r.tokenUrl ?? ''}/${scope}`

/**
 * A token for `scope`: the cached one while it lasts, else a new one, asked for within `timeoutMs`.
 * @throws PlatformTokenRefused
 */
export async function platformToken(
  tenant: TenantContext,
  registration: LtiRegistration,
  scope: string,
  timeoutMs = TIMEOUT_MS,
): Promise<string> {
  const key = cacheKey(tenant, registration, scope)
  const cached = cache.get(key)
  if (cached && cached.expiresAtMs > Date.now()) return cached.token
  const fresh = await requestToken(tenant, registration, scope, timeoutMs)
  cache.set(key, fresh)
  return fresh.token
}

/** A token the platform refused (401): the next request asks for a new one. */
export function forgetPlatformToken(
  tenant: TenantContext,
  registration: LtiRegistration,
  scope: string,
): void {
  cache.delete(cacheKey(tenant, registration, scope))
}

/** A token for the score scope. @throws PlatformTokenRefused */
export const scoreToken = (tenant: TenantContext, registration: LtiRegistration) =>
  platformToken(tenant, registration, AGS_SCORE_SCOPE)

export const forgetScoreToken = (tenant: TenantContext, registration: LtiRegistration) =>
  forgetPlatformToken(tenant, registration, AGS_SCORE_SCOPE)

async function requestToken(tenant: TenantContext, r: LtiRegistration, scope: string, timeoutMs: number) {
  const tokenUrl = r.tokenUrl
  if (!tokenUrl) throw new PlatformTokenRefused('the registration has no token_url')
  const assertion = await signAsTool(
    tenant,
    { sub: r.clientId },
    { issuer: r.clientId, audience: tokenUrl, expiresInSeconds: ASSERTION_SECONDS },
  )
  const form = new URLSearchParams({
    grant_type: 'client_credentials',
    client_assertion_type: CLIENT_ASSERTION_TYPE,
    client_assertion: assertion,
    scope,
  })
  const res = await sendOutbound({
    url: tokenUrl,
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: Buffer.from(form.toString()),
    timeoutMs,
    guard: { allowLoopback: config.allowLoopbackTargets },
  })
  if (res.kind === 'failure') throw new PlatformTokenRefused(`${res.reason}: ${res.message}`)
  if (res.status !== 200) throw new PlatformTokenRefused(`http_${res.status}`)
  let body: { access_token?: unknown; expires_in?: unknown }
  try {
    body = JSON.parse(res.body) as typeof body
  } catch {
    throw new PlatformTokenRefused('the answer is not JSON')
  }
  if (typeof body.access_token !== 'string' || body.access_token === '')
    throw new PlatformTokenRefused('the answer has no access_token')
  const expiresIn = typeof body.expires_in === 'number' ? body.expires_in : DEFAULT_EXPIRES_IN
  return { token: body.access_token, expiresAtMs: Date.now() + expiresIn * 1000 - EXPIRY_MARGIN_MS }
}
