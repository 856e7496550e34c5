/**
 * LTI Dynamic Registration 1.0 (decision 0051): a tenant admin's one-time link, and what the link
 * does when a platform administrator opens it. The link is claimed first (one request at a time,
 * never twice), then the platform's configuration is read and the tool's registration posted, both
 * through the SSRF guard; the registration and its deployment are stored, with the link used, only
 * once the platform accepted. Any refusal gives the link back.
 */
import { randomUUID } from 'node:crypto'
import { config } from '../../config.ts'
import { ValidationError } from '../../domain/errors.ts'
import {
  configurationProblem,
  PlatformConfiguration,
  platformDeepLinks,
  registeredClient,
  REGISTRATION_CLAIM_SECONDS,
  REGISTRATION_LINK_SECONDS,
  toolRegistration,
} from '../../domain/lti/dynamic-registration.ts'
import type { LtiDeployment, LtiRegistration } from '../../domain/lti/lti.ts'
import type { Tenant, TenantContext } from '../../domain/tenants/tenant.ts'
import * as v from 'valibot'
import { log } from '../../log.ts'
import { sendOutbound, type OutboundRequest } from '../../net/outbound-http.ts'
import { isRefused } from '../../store/core/store-errors.ts'
import {
  claimRegistrationLink,
  insertLinkedRegistration,
  putRegistrationLink,
  releaseRegistrationLink,
  type LinkRefusal,
} from '../../store/lti/lti-registration-links-store.ts'
import type { ToolUrls } from './lti-launch-service.ts'
import { newRegistration } from './lti-registrations-service.ts'

/** Both calls to the platform fit in the function's 10 seconds. */
const PLATFORM_TIMEOUT_MS = 4000
const MAX_ANSWER_BYTES = 64 * 1024

/** The path of a link under the tenant's API (the route `GET /api/v1/lti/dynamic-registration/{token}`). */
export const registrationLinkUrl = (urls: ToolUrls, token: string): string =>
  `${urls.api}/lti/dynamic-registration/${token}`

export interface RegistrationLink {
  readonly url: string
  readonly expiresAt: string
}

/** A new one-time link, valid one hour; only the hash of its token is stored. */
export async function createRegistrationLink(
  tenant: TenantContext,
  urls: ToolUrls,
  keyId: string,
  now = new Date(),
): Promise<RegistrationLink> {
  // A v4 UUID: 122 random bits, and the path parameter the API document describes.
  const token = randomUUID()
  const expiresEpoch = Math.floor(now.getTime() / 1000) + REGISTRATION_LINK_SECONDS
  await putRegistrationLink(tenant, token, { createdAt: now.toISOString(), createdBy: keyId, expiresEpoch })
  return { url: registrationLinkUrl(urls, token), expiresAt: new Date(expiresEpoch * 1000).toISOString() }
}

export interface RegistrationRequest {
  readonly token: string
  readonly openidConfiguration: string | undefined
  readonly registrationToken: string | undefined
}

export type RefusalCode =
  | 'missing_openid_configuration'
  | 'link_unusable'
  | 'configuration_refused'
  | 'platform_refused'
  | 'already_registered'

export type RegistrationOutcome =
  | {
      readonly kind: 'registered'
      readonly registration: LtiRegistration
      readonly deployment: LtiDeployment | null
    }
  | { readonly kind: 'refused'; readonly code: RefusalCode; readonly reason: string }

/** A refusal on the way: the link is given back and the page says `code`. */
class Refused extends Error {
  constructor(
    readonly code: RefusalCode,
    readonly reason: string,
  ) {
    super(reason)
  }
}

const guarded = (req: Omit<OutboundRequest, 'guard' | 'timeoutMs' | 'maxResponseBytes'>) =>
  sendOutbound({
    ...req,
    timeoutMs: PLATFORM_TIMEOUT_MS,
    maxResponseBytes: MAX_ANSWER_BYTES,
    guard: { allowLoopback: config.allowLoopbackTargets },
  })

/** The JSON body of a 2xx answer, or a refusal naming the step (`what`) that failed. */
async function platformJson(
  req: Parameters<typeof guarded>[0],
  code: RefusalCode,
  what: string,
): Promise<unknown> {
  const res = await guarded(req)
  // A URL the SSRF guard refuses is the configuration's fault, whichever step it names.
  if (res.kind !== 'response')
    throw new Refused(
      res.reason === 'refused' ? 'configuration_refused' : code,
      `${what}: ${res.reason} (${res.message})`,
    )
  if (res.status < 200 || res.status > 299) throw new Refused(code, `${what}: HTTP ${res.status}`)
  try {
    return JSON.parse(res.body) as unknown
  } catch {
    throw new Refused(code, `${what}: not JSON`)
  }
}

async function platformConfiguration(url: string): Promise<PlatformConfiguration> {
  const body = await platformJson(
    { url, method: 'GET', headers: { accept: 'application/json' } },
    'configuration_refused',
    'openid_configuration',
  )
  const parsed = v.safeParse(PlatformConfiguration, body)
  if (!parsed.success)
    throw new Refused('configuration_refused', 'openid_configuration: not a platform configuration')
  const problem = configurationProblem(parsed.output, url)
  if (problem) throw new Refused('configuration_refused', `openid_configuration: ${problem}`)
  return parsed.output
}

async function registerWithPlatform(
  tenant: Tenant,
  urls: ToolUrls,
  platform: PlatformConfiguration,
  registrationToken: string | undefined,
) {
  const answer = await platformJson(
    {
      url: platform.registration_endpoint,
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        ...(registrationToken ? { authorization: `Bearer ${registrationToken}` } : {}),
      },
      body: Buffer.from(JSON.stringify(toolRegistration({ api: urls.api, name: tenant.name }, platform))),
    },
    'platform_refused',
    'registration',
  )
  const client = registeredClient(answer)
  if (!client) throw new Refused('platform_refused', 'registration: the answer names no client_id')
  return client
}

/** The registration as the platform described it; an unsafe URL in its configuration refuses it. */
async function registrationOf(platform: PlatformConfiguration, clientId: string): Promise<LtiRegistration> {
  try {
    return await newRegistration({
      issuer: platform.issuer,
      clientId,
      jwksUrl: platform.jwks_uri,
      authUrl: platform.authorization_endpoint,
      ...(platform.token_endpoint !== undefined ? { tokenUrl: platform.token_endpoint } : {}),
      deepLinking: platformDeepLinks(platform),
    })
  } catch (err) {
    if (err instanceof ValidationError) throw new Refused('configuration_refused', err.message)
    throw err
  }
}

async function registerClaimed(
  tenant: Tenant,
  request: RegistrationRequest & { readonly openidConfiguration: string },
  claimId: string,
  urls: ToolUrls,
): Promise<RegistrationOutcome> {
  const platform = await platformConfiguration(request.openidConfiguration)
  // Checked before the platform is asked, so a refused configuration leaves nothing on either side.
  const draft = await registrationOf(platform, 'pending')
  const client = await registerWithPlatform(tenant, urls, platform, request.registrationToken)
  const registration: LtiRegistration = { ...draft, clientId: client.clientId }
  const deployment: LtiDeployment | null =
    client.deploymentId === null
      ? null
      : { registrationId: registration.id, deploymentId: client.deploymentId, courseId: null }
  try {
    await insertLinkedRegistration(tenant, { token: request.token, claimId }, registration, deployment)
  } catch (err) {
    if (isRefused<LinkRefusal>(err, 'registration_exists'))
      throw new Refused('already_registered', 'this issuer and client id are registered already')
    if (isRefused<LinkRefusal>(err, 'claim_lost')) throw new Refused('link_unusable', 'the claim lapsed')
    throw err
  }
  return { kind: 'registered', registration, deployment }
}

/**
 * What opening the link does (Dynamic Registration 3.3 to 3.6). A link that is unknown, used,
 * expired or being used by another request is refused without a call to the platform.
 */
export async function registerFromLink(
  tenant: Tenant,
  request: RegistrationRequest,
  urls: ToolUrls,
): Promise<RegistrationOutcome> {
  const refused = (code: RefusalCode, reason: string): RegistrationOutcome => {
    log('info', 'lti dynamic registration refused', { tenantId: tenant.id, code, reason })
    return { kind: 'refused', code, reason }
  }
  const openidConfiguration = request.openidConfiguration?.trim()
  if (!openidConfiguration) return refused('missing_openid_configuration', 'no openid_configuration')
  const nowEpoch = Math.floor(Date.now() / 1000)
  const claimId = randomUUID()
  const claimed = await claimRegistrationLink(tenant, request.token, {
    claimId,
    nowEpoch,
    untilEpoch: nowEpoch + REGISTRATION_CLAIM_SECONDS,
  })
  if (!claimed) return refused('link_unusable', 'unknown, used, expired or in use')
  try {
    const outcome = await registerClaimed(tenant, { ...request, openidConfiguration }, claimId, urls)
    log('info', 'lti dynamic registration', {
      tenantId: tenant.id,
      registrationId: outcome.kind === 'registered' ? outcome.registration.id : undefined,
    })
    return outcome
  } catch (err) {
    await releaseRegistrationLink(tenant, request.token, claimId)
    if (err instanceof Refused) return refused(err.code, err.reason)
    throw err
  }
}
