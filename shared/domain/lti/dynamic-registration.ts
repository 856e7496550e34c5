/**
 * LTI Dynamic Registration 1.0 (decision 0051), the pure part: what a platform's OpenID
 * configuration must say before the tool registers with it, the tool's client registration (its
 * LTI tool configuration), and what the platform's answer must carry. Fetching, the SSRF guard
 * and storage are the service's (shared/services/lti/lti-dynamic-registration-service.ts).
 */
import * as v from 'valibot'

/** A registration link is valid one hour (api-additions section 4). */
export const REGISTRATION_LINK_SECONDS = 3600
/**
 * How long a request holds a link it claimed: longer than the function may run (10 s), so a
 * request that died holding it gives it back to the next one after this.
 */
export const REGISTRATION_CLAIM_SECONDS = 60

const TOOL_CONFIGURATION = 'https://purl.imsglobal.org/spec/lti-tool-configuration'
const PLATFORM_CONFIGURATION = 'https://purl.imsglobal.org/spec/lti-platform-configuration'

/** The scopes the tool asks for: AGS score passback and the NRPS roster, read only. */
export const TOOL_SCOPES = [
  'https://purl.imsglobal.org/spec/lti-ags/scope/score',
  'https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly',
] as const

/** The id_token claims a launch reads (names and e-mail make the account; lti.ts). */
const WANTED_CLAIMS = ['iss', 'sub', 'name', 'given_name', 'family_name', 'email'] as const

const Url = v.pipe(v.string(), v.nonEmpty(), v.maxLength(2048))

const MessageSupported = v.looseObject({ type: v.string() })

/** The platform's configuration (OpenID Connect Discovery plus the LTI platform claim): what the tool reads of it. */
export const PlatformConfiguration = v.looseObject({
  issuer: Url,
  authorization_endpoint: Url,
  token_endpoint: v.optional(Url),
  jwks_uri: Url,
  registration_endpoint: Url,
  id_token_signing_alg_values_supported: v.optional(v.array(v.string())),
  claims_supported: v.optional(v.array(v.string())),
  [PLATFORM_CONFIGURATION]: v.optional(
    v.looseObject({ messages_supported: v.optional(v.array(MessageSupported)) }),
  ),
})
export type PlatformConfiguration = v.InferOutput<typeof PlatformConfiguration>

const origin = (raw: string): string | undefined => (URL.canParse(raw) ? new URL(raw).origin : undefined)

/**
 * Why the tool cannot register with this configuration, or undefined. The issuer must be of the
 * origin the configuration was read from (Dynamic Registration 3.5.1: a page cannot name another
 * platform's issuer), signing with RS256 must be offered, and a platform that lists its messages
 * must list resource link launches.
 */
export function configurationProblem(
  config: PlatformConfiguration,
  configurationUrl: string,
): string | undefined {
  const issuerOrigin = origin(config.issuer)
  if (issuerOrigin === undefined || issuerOrigin !== origin(configurationUrl))
    return 'the issuer is not of the origin of the configuration URL'
  const algs = config.id_token_signing_alg_values_supported
  if (algs !== undefined && !algs.includes('RS256')) return 'the platform does not sign with RS256'
  const messages = config[PLATFORM_CONFIGURATION]?.messages_supported
  if (messages !== undefined && !messages.some((m) => m.type === 'LtiResourceLinkRequest'))
    return 'the platform does not launch resource links'
  return undefined
}

/** Deep linking is switched on when the platform offers it (or does not list its messages). */
export function platformDeepLinks(config: PlatformConfiguration): boolean {
  const messages = config[PLATFORM_CONFIGURATION]?.messages_supported
  return messages === undefined || messages.some((m) => m.type === 'LtiDeepLinkingRequest')
}

/** The tool's routes the registration names (the same the README lists for manual registration). */
export interface ToolEndpoints {
  /** `<scheme>://<tenant host>/api/v1` */
  readonly api: string
  readonly name: string
}

/** The client registration the tool posts (Dynamic Registration 3.6: OpenID client metadata plus the LTI tool configuration). */
export function toolRegistration(
  tool: ToolEndpoints,
  config: PlatformConfiguration,
): Record<string, unknown> {
  const launch = `${tool.api}/lti/launch`
  const deepLink = `${tool.api}/lti/deep-link`
  const supported = config.claims_supported
  return {
    application_type: 'web',
    response_types: ['id_token'],
    grant_types: ['implicit', 'client_credentials'],
    initiate_login_uri: `${tool.api}/lti/login`,
    redirect_uris: [launch, deepLink],
    client_name: tool.name,
    jwks_uri: `${tool.api}/lti/.well-known/jwks.json`,
    token_endpoint_auth_method: 'private_key_jwt',
    scope: TOOL_SCOPES.join(' '),
    [TOOL_CONFIGURATION]: {
      domain: new URL(tool.api).host,
      target_link_uri: launch,
      claims: supported ? WANTED_CLAIMS.filter((c) => supported.includes(c)) : [...WANTED_CLAIMS],
      messages: [
        { type: 'LtiResourceLinkRequest', target_link_uri: launch },
        { type: 'LtiDeepLinkingRequest', target_link_uri: deepLink },
      ],
    },
  }
}

/** The platform's answer: the client id it gave the tool and, in the tool configuration, the deployment. */
const RegistrationAnswer = v.looseObject({
  client_id: v.pipe(v.string(), v.nonEmpty(), v.maxLength(2048)),
  [TOOL_CONFIGURATION]: v.optional(
    v.looseObject({ deployment_id: v.optional(v.pipe(v.string(), v.nonEmpty(), v.maxLength(2048))) }),
  ),
})

export interface RegisteredClient {
  readonly clientId: string
  /** null when the platform made no deployment yet (an admin adds it later). */
  readonly deploymentId: string | null
}

/** The client the platform's answer names, or undefined when the answer is not one. */
export function registeredClient(answer: unknown): RegisteredClient | undefined {
  const parsed = v.safeParse(RegistrationAnswer, answer)
  if (!parsed.success) return undefined
  return {
    clientId: parsed.output.client_id,
    deploymentId: parsed.output[TOOL_CONFIGURATION]?.deployment_id ?? null,
  }
}
