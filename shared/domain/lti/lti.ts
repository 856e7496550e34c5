/**
 * LTI 1.3 tool provider: the registration a tenant admin enters, the claims a platform's id_token
 * carries, and the pure rules of a launch (message type, version, deployment, roles, names). No
 * cryptography and no storage here: those are in shared/services/lti-*.ts and shared/store/lti/lti-store.ts.
 */
import { createHash } from 'node:crypto'
import * as v from 'valibot'
import { fitText, textRules } from '../text-rules.ts'
import { privilegedRoles, type StoredRole } from '../users/user.ts'
import { Email } from '../users/user-schemas.ts'

/** A platform (Canvas, Moodle, ...) registered by a tenant admin. */
export interface LtiRegistration {
  readonly id: string
  readonly issuer: string
  readonly clientId: string
  readonly jwksUrl: string
  readonly authUrl: string
  readonly tokenUrl: string | null
  readonly deepLinking: boolean
  readonly isActive: boolean
  readonly createdAt: string
}

/** A deployment id of a registration, optionally bound to a course a launch lands in. */
export interface LtiDeployment {
  readonly registrationId: string
  readonly deploymentId: string
  readonly courseId: string | null
}

/** The only codes a failed launch shows (spec 001, LTI errors); never any detail. */
export const launchErrorCodes = ['SamlInvalidAssertion', 'SamlNotConfigured', 'AccountInactive'] as const
export type LaunchErrorCode = (typeof launchErrorCodes)[number]

/** A launch (or deep-linking request) refused: the login page shows `code` and nothing more. */
export class LaunchRefused extends Error {
  constructor(
    readonly code: LaunchErrorCode,
    /** Why, for the log line only (never shown to the learner). */
    readonly reason: string,
  ) {
    super(`${code}: ${reason}`)
    this.name = 'LaunchRefused'
  }
}

export const CLAIM = {
  messageType: 'https://purl.imsglobal.org/spec/lti/claim/message_type',
  version: 'https://purl.imsglobal.org/spec/lti/claim/version',
  deploymentId: 'https://purl.imsglobal.org/spec/lti/claim/deployment_id',
  roles: 'https://purl.imsglobal.org/spec/lti/claim/roles',
  custom: 'https://purl.imsglobal.org/spec/lti/claim/custom',
  resourceLink: 'https://purl.imsglobal.org/spec/lti/claim/resource_link',
  targetLinkUri: 'https://purl.imsglobal.org/spec/lti/claim/target_link_uri',
  deepLinkingSettings: 'https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings',
  contentItems: 'https://purl.imsglobal.org/spec/lti-dl/claim/content_items',
  data: 'https://purl.imsglobal.org/spec/lti-dl/claim/data',
} as const

export const LTI_VERSION = '1.3.0'
export type LtiMessageKind = 'launch' | 'deep_link'

/** The message types each route accepts (`LtiResourceLink*`: the spec names the family). */
export function messageTypeFits(kind: LtiMessageKind, messageType: unknown): boolean {
  if (typeof messageType !== 'string') return false
  return kind === 'launch'
    ? messageType.startsWith('LtiResourceLink')
    : messageType === 'LtiDeepLinkingRequest'
}

/** What a verified id_token must carry beyond its signature, in the spec's order; undefined when it does. */
export function claimProblem(
  kind: LtiMessageKind,
  claims: Readonly<Record<string, unknown>>,
): string | undefined {
  if (!messageTypeFits(kind, claims[CLAIM.messageType])) return 'message_type missing or not for this route'
  if (claims[CLAIM.version] !== LTI_VERSION) return 'version is not 1.3.0'
  const deployment = claims[CLAIM.deploymentId]
  if (typeof deployment !== 'string' || deployment === '') return 'deployment_id missing'
  if (typeof claims.sub !== 'string' || claims.sub === '') return 'sub missing'
  return undefined
}

/** LTI Instructor or Administrator (context or institution role, any vocabulary) → instructor. */
export function roleFromLtiRoles(roles: unknown): 'instructor' | 'learner' {
  if (!Array.isArray(roles)) return 'learner'
  const teaches = roles.some(
    (r) => typeof r === 'string' && /(^|[#/])(Instructor|Administrator)$/.test(r.trim()),
  )
  return teaches ? 'instructor' : 'learner'
}

const clean = (x: unknown): string => (typeof x === 'string' ? x.replace(/\s+/g, ' ').trim() : '')

/** A name as the users API takes it (its text rule), cut at a whole character; '' when none is left. */
const personName = (s: string): string => fitText(textRules.personName, s).trim()

/**
 * given_name + family_name, falling back to `name` (split at its last space), then placeholders;
 * each made to fit the users API's name rule (issue 26: a cut never splits an emoji).
 */
export function namesFromClaims(claims: Readonly<Record<string, unknown>>): { first: string; last: string } {
  let first = personName(clean(claims.given_name))
  let last = personName(clean(claims.family_name))
  if (!first && !last) {
    const full = clean(claims.name)
    const cut = full.lastIndexOf(' ')
    first = personName(cut > 0 ? full.slice(0, cut) : full)
    last = personName(cut > 0 ? full.slice(cut + 1) : '')
  }
  return { first: first || 'LTI', last: last || 'User' }
}

/**
 * The e-mail claim as the users API normalises and accepts it (the same schema), or undefined when
 * absent or not an address it takes (such a learner gets the synthetic address instead).
 */
export function emailClaim(claims: Readonly<Record<string, unknown>>): string | undefined {
  const parsed = v.safeParse(Email, clean(claims.email))
  return parsed.success && parsed.output !== '' ? parsed.output : undefined
}

/**
 * The deep-linking return URL of the settings claim, as an absolute http(s) URL that parses, or
 * undefined (a malformed one such as `http://[` cannot be answered).
 */
export function deepLinkReturnUrl(settings: unknown): string | undefined {
  const raw =
    settings && typeof settings === 'object'
      ? (settings as Record<string, unknown>).deep_link_return_url
      : undefined
  if (typeof raw !== 'string' || raw.length > LTI_URL_MAX_CHARS || !URL.canParse(raw)) return undefined
  const url = new URL(raw)
  return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : undefined
}

/** Longest URL or identifier taken from a platform (the registration's own bound). */
export const LTI_URL_MAX_CHARS = 2048
/**
 * Longest login_hint and lti_message_hint: both are opaque to the tool and copied into the
 * redirect's Location, so they are bounded (a platform's hints are ids or a signed token of
 * about a kilobyte).
 */
export const LTI_HINT_MAX_CHARS = 4096

/** The login parameter that exceeds its bound, if any (the login then ends on the login page). */
export function oversizedLoginParam(
  params: Readonly<Record<string, string | undefined>>,
): string | undefined {
  const bounds: Record<string, number> = {
    iss: LTI_URL_MAX_CHARS,
    target_link_uri: LTI_URL_MAX_CHARS,
    client_id: LTI_URL_MAX_CHARS,
    lti_deployment_id: LTI_URL_MAX_CHARS,
    login_hint: LTI_HINT_MAX_CHARS,
    lti_message_hint: LTI_HINT_MAX_CHARS,
  }
  return Object.keys(bounds).find((name) => (params[name]?.length ?? 0) > (bounds[name] ?? 0))
}

/**
 * The internal address of a platform user without an e-mail claim: derived from (issuer, sub) by
 * the caller's hash, under a reserved domain (`.invalid`, RFC 2606) that never receives mail.
 */
/** The internal address of a platform user who sent no e-mail claim: stable per (issuer, sub), never routable. */
export const syntheticEmail = (issuer: string, sub: string): string =>
  `lti-${createHash('sha256')
    .update(JSON.stringify([issuer, sub]))
    .digest('hex')
    .slice(0, 32)}@lti.invalid`

/**
 * Decision 0020: an e-mail claim never signs a platform user in as a user of a privileged role
 * (every role whose assignment needs the admin scope: manager, group_admin, ecommerce_admin, admin,
 * owner; issue 26). The platform vouches for the address, not the tenant: a platform admin could
 * otherwise type such a user's address into a platform profile and take the account over.
 */
export const takeoverProtectedRoles: ReadonlySet<StoredRole> = privilegedRoles

/** Clock skew accepted on exp/iat/nbf, in seconds. */
export const CLOCK_SKEW_SECONDS = 60
/** How long a login's state and nonce wait for their launch. */
export const LOGIN_STATE_SECONDS = 600
/** How long a learner's session lasts. */
export const SESSION_SECONDS = 3600
