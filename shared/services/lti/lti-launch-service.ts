/**
 * LTI 1.3 login and launch (spec 001 "LTI 1.3 routes", decision 0020). The login answers a
 * platform's third-party-initiated login with a redirect to the authorization endpoint registered
 * for that issuer and client (never to a URL the request supplies), after storing a single-use
 * state + nonce that a cookie binds to the browser. The launch (and the deep-linking request)
 * checks the id_token step by step; any failure is a LaunchRefused carrying one of the spec's codes.
 */
import { randomBytes } from 'node:crypto'
import { decodeJwt, decodeProtectedHeader, importJWK, jwtVerify, type JWTPayload } from 'jose'
import {
  CLAIM,
  claimProblem,
  CLOCK_SKEW_SECONDS,
  LaunchRefused,
  LOGIN_STATE_SECONDS,
  type LtiDeployment,
  type LtiMessageKind,
  type LtiRegistration,
} from '../../domain/lti/lti.ts'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import {
  consumeLoginState,
  getDeployment,
  putLoginState,
  registrationsOf,
} from '../../store/lti/lti-store.ts'
import { platformKey } from './lti-platform-keys.ts'

/** The tool's URLs on the tenant's host; `api` is the spec's {base_url} (it includes /api/v1). */
export interface ToolUrls {
  readonly origin: string
  readonly api: string
}

export const toolRoute = (urls: ToolUrls, kind: LtiMessageKind): string =>
  `${urls.api}/lti/${kind === 'launch' ? 'launch' : 'deep-link'}`

export interface LoginParams {
  readonly iss?: string
  readonly login_hint?: string
  readonly target_link_uri?: string
  readonly client_id?: string
  readonly lti_message_hint?: string
  readonly lti_deployment_id?: string
}

export type LoginOutcome =
  | { readonly kind: 'missing'; readonly fields: readonly string[] }
  | { readonly kind: 'refused'; readonly code: LaunchRefused['code']; readonly reason: string }
  | { readonly kind: 'redirect'; readonly location: string; readonly state: string }

const REQUIRED = ['iss', 'login_hint', 'target_link_uri'] as const

/** The one active registration the login names (client_id given, or the issuer's only one). */
async function activeRegistration(
  tenant: TenantContext,
  issuer: string,
  clientId: string | undefined,
): Promise<LtiRegistration | undefined> {
  const found = (await registrationsOf(tenant, issuer, clientId)).filter((r) => r.isActive)
  return found.length === 1 ? found[0] : undefined
}

/**
 * `target_link_uri` is accepted when it names the registered authorization endpoint (the spec's
 * wording) or one of the tool's own routes and pages; the redirect goes to the registered endpoint
 * in every case. It also picks the route the id_token comes back to (deep linking or launch).
 */
function targetKind(
  target: string,
  registration: LtiRegistration,
  urls: ToolUrls,
): LtiMessageKind | undefined {
  if (target === registration.authUrl) return 'launch'
  if (target === toolRoute(urls, 'deep_link')) return 'deep_link'
  if (target === toolRoute(urls, 'launch')) return 'launch'
  if (target === `${urls.origin}/catalog` || target.startsWith(`${urls.origin}/learn/`)) return 'launch'
  return undefined
}

export async function login(
  tenant: TenantContext,
  params: LoginParams,
  urls: ToolUrls,
): Promise<LoginOutcome> {
  const missing = REQUIRED.filter((name) => !params[name]?.trim())
  if (missing.length > 0) return { kind: 'missing', fields: missing }
  const { iss = '', login_hint = '', target_link_uri = '' } = params
  const clientId = params.client_id?.trim() || undefined
  const registration = await activeRegistration(tenant, iss, clientId)
  if (!registration)
    return {
      kind: 'refused',
      code: 'SamlNotConfigured',
      reason: 'no active registration for issuer and client',
    }
  const kind = targetKind(target_link_uri, registration, urls)
  if (!kind)
    return { kind: 'refused', code: 'SamlNotConfigured', reason: 'target_link_uri is not registered' }

  const state = randomBytes(24).toString('base64url')
  const nonce = randomBytes(24).toString('base64url')
  await putLoginState(tenant, {
    state,
    nonce,
    registrationId: registration.id,
    redirectKind: kind,
    expiresEpoch: Math.floor(Date.now() / 1000) + LOGIN_STATE_SECONDS,
  })
  const location = new URL(registration.authUrl)
  const q = location.searchParams
  q.set('scope', 'openid')
  q.set('response_type', 'id_token')
  q.set('response_mode', 'form_post')
  q.set('prompt', 'none')
  q.set('client_id', registration.clientId)
  q.set('redirect_uri', toolRoute(urls, kind))
  q.set('login_hint', login_hint)
  if (params.lti_message_hint !== undefined) q.set('lti_message_hint', params.lti_message_hint)
  q.set('state', state)
  q.set('nonce', nonce)
  return { kind: 'redirect', location: location.toString(), state }
}

/** The cookie that binds a login's state to the browser that started it. */
export const stateCookieName = (state: string) => `lms_lti_state_${state}`

export interface LaunchInput {
  readonly idToken: string | undefined
  readonly state: string | undefined
  /** Whether the browser holds the cookie of `state`. */
  readonly stateCookie: boolean
}

export interface VerifiedMessage {
  readonly registration: LtiRegistration
  readonly deployment: LtiDeployment
  readonly claims: JWTPayload & Record<string, unknown>
}

const invalid = (reason: string) => new LaunchRefused('SamlInvalidAssertion', reason)

/** The client ids the token is for: `aud` when alone; with several, `azp` must name one of them. */
function clientIdOf(payload: JWTPayload): string | undefined {
  const aud = payload.aud
  if (typeof aud === 'string') return aud
  if (!Array.isArray(aud) || aud.length === 0) return undefined
  if (aud.length === 1) return aud[0]
  return typeof payload.azp === 'string' && aud.includes(payload.azp) ? payload.azp : undefined
}

/**
 * Every step of the spec, in its order: issuer and audience → the active registration → the
 * signature (RS256 only, platform keys by kid) with exp/iat → the state and single-use nonce →
 * message type, version and deployment. Nothing is written before the nonce is used up.
 * @throws LaunchRefused
 */
export async function verifyMessage(
  tenant: TenantContext,
  kind: LtiMessageKind,
  input: LaunchInput,
): Promise<VerifiedMessage> {
  const token = input.idToken?.trim()
  if (!token) throw invalid('id_token missing')
  let unverified: JWTPayload
  let header: ReturnType<typeof decodeProtectedHeader>
  try {
    header = decodeProtectedHeader(token)
    unverified = decodeJwt(token)
  } catch {
    throw invalid('id_token is not a JWT')
  }
  const issuer = unverified.iss
  const clientId = clientIdOf(unverified)
  if (typeof issuer !== 'string' || !clientId) throw invalid('iss or aud missing')
  const registration = await activeRegistration(tenant, issuer, clientId)
  if (!registration) throw new LaunchRefused('SamlNotConfigured', 'no active registration')

  // Refused before any key is fetched: `none`, HS256 (our public key as an HMAC secret), anything else.
  if (header.alg !== 'RS256') throw invalid(`alg ${String(header.alg)} refused`)
  let claims: JWTPayload
  try {
    const jwk = await platformKey(registration.jwksUrl, header.kid)
    if (!jwk) throw invalid('no platform key for kid')
    const key = await importJWK({ ...jwk, alg: 'RS256' }, 'RS256')
    ;({ payload: claims } = await jwtVerify(token, key, {
      algorithms: ['RS256'],
      issuer: registration.issuer,
      audience: registration.clientId,
      clockTolerance: CLOCK_SKEW_SECONDS,
      requiredClaims: ['exp', 'iat', 'nonce', 'sub'],
      maxTokenAge: LOGIN_STATE_SECONDS,
    }))
  } catch (err) {
    if (err instanceof LaunchRefused) throw err
    throw invalid(`signature or claims: ${err instanceof Error ? err.name : 'unknown'}`)
  }
  if (clientIdOf(claims) !== registration.clientId) throw invalid('azp does not name the client')

  const state = input.state?.trim()
  if (!state || !input.stateCookie) throw invalid('state missing or not bound to this browser')
  const used = await consumeLoginState(tenant, state, String(claims.nonce), Math.floor(Date.now() / 1000))
  if (!used || used.registrationId !== registration.id)
    throw invalid('state or nonce unknown, used or expired')

  const problem = claimProblem(kind, claims)
  if (problem) throw invalid(problem)
  const deployment = await getDeployment(tenant, registration.id, String(claims[CLAIM.deploymentId]))
  if (!deployment) throw invalid('deployment_id not registered')
  return { registration, deployment, claims: claims as JWTPayload & Record<string, unknown> }
}
