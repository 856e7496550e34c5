/**
 * LTI Names and Role Provisioning Services 2.0 (decision 0052): the service claim of a launch, the
 * membership container a platform answers, which members are learners, and the `Link` header that
 * pages it. Pure: the token, the fetch and the accounts are in shared/services/lti/lti-roster-service.ts.
 */
import { CLAIM, LTI_URL_MAX_CHARS } from './lti.ts'

export const NRPS_CLAIM = 'https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice'
export const NRPS_SCOPE = 'https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly'
export const MEMBERSHIP_MEDIA_TYPE = 'application/vnd.ims.lti-nrps.v2.membershipcontainer+json'
export const CONTEXT_CLAIM = 'https://purl.imsglobal.org/spec/lti/claim/context'

/** An absolute http(s) URL of a bounded length, or undefined. */
function httpUrl(raw: unknown, base?: string): string | undefined {
  if (typeof raw !== 'string' || raw.length > LTI_URL_MAX_CHARS || !URL.canParse(raw, base)) return undefined
  const url = new URL(raw, base)
  return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : undefined
}

/** The membership service a launch offers: its URL and the context (the platform's course) it lists. */
export interface MembershipService {
  readonly contextId: string
  readonly membershipsUrl: string
}

/**
 * The NRPS claim of a launch when it offers version 2.0 with a usable `context_memberships_url`,
 * and the launch names its context; undefined otherwise (nothing is synchronised).
 */
export function membershipServiceOf(
  claims: Readonly<Record<string, unknown>>,
): MembershipService | undefined {
  const claim = claims[NRPS_CLAIM]
  const context = claims[CONTEXT_CLAIM]
  if (!claim || typeof claim !== 'object' || !context || typeof context !== 'object') return undefined
  const { context_memberships_url: rawUrl, service_versions: versions } = claim as Record<string, unknown>
  const contextId = (context as Record<string, unknown>).id
  if (!Array.isArray(versions) || !versions.includes('2.0')) return undefined
  if (typeof contextId !== 'string' || contextId === '' || contextId.length > LTI_URL_MAX_CHARS)
    return undefined
  const membershipsUrl = httpUrl(rawUrl)
  return membershipsUrl ? { contextId, membershipsUrl } : undefined
}

/**
 * The `rel="next"` target of a `Link` header (RFC 8288), resolved against the page's URL, or
 * undefined. Targets are in angle brackets, so commas and semicolons inside them do not split;
 * `rel` may be quoted or not, and may list several relation types.
 */
export function nextLink(header: string | readonly string[] | undefined, base: string): string | undefined {
  const values = typeof header === 'string' ? [header] : (header ?? [])
  for (const value of values) {
    for (const [, target, params] of value.matchAll(/<([^>]*)>([^<]*)/g)) {
      const rel = /(?:^|;)\s*rel\s*=\s*(?:"([^"]*)"|([^\s;,]+))/i.exec(params ?? '')
      const types = (rel?.[1] ?? rel?.[2] ?? '').toLowerCase().split(/\s+/)
      if (types.includes('next')) return httpUrl(target, base)
    }
  }
  return undefined
}

/** One member of a membership container, as far as the tool reads it. */
export interface Member {
  readonly userId: string
  readonly roles: readonly string[]
  readonly active: boolean
  /** The member as launch claims would carry it: the same account rules apply (lti-accounts-service). */
  readonly claims: Readonly<Record<string, unknown>>
}

/** A member the container lists without a usable `user_id`: reported, never given an account. */
export interface UnreadableMember {
  readonly userId: string | null
}

const text = (x: unknown): string | undefined => (typeof x === 'string' ? x : undefined)

/**
 * The members of one page, or undefined when the body is not a membership container. `status`
 * absent means Active (NRPS 2.0); `Inactive` and `Deleted` members are read but not active.
 */
export function membersOf(body: unknown): (Member | UnreadableMember)[] | undefined {
  if (!body || typeof body !== 'object') return undefined
  const members = (body as Record<string, unknown>).members
  if (!Array.isArray(members)) return undefined
  return members.map((m: unknown): Member | UnreadableMember => {
    const r = m && typeof m === 'object' ? (m as Record<string, unknown>) : {}
    const userId = text(r.user_id)
    if (!userId || userId.length > LTI_URL_MAX_CHARS) return { userId: userId ?? null }
    const roles = Array.isArray(r.roles) ? r.roles.filter((x): x is string => typeof x === 'string') : []
    const status = text(r.status) ?? 'Active'
    return {
      userId,
      roles,
      active: status === 'Active',
      claims: {
        sub: userId,
        email: text(r.email),
        name: text(r.name),
        given_name: text(r.given_name),
        family_name: text(r.family_name),
        [CLAIM.roles]: roles,
      },
    }
  })
}

export const isReadable = (m: Member | UnreadableMember): m is Member => 'roles' in m

/**
 * Whether a member holds the context role Learner: the full URI of LIS v2, the short form LTI 1.3
 * still allows (`Learner`), and the LIS v1 URN older platforms send. Sub-roles come with their
 * principal role (LTI 1.3, A.2.2), so the principal is what counts.
 */
export function isLearner(roles: readonly string[]): boolean {
  return roles.some((r) =>
    [
      'http://purl.imsglobal.org/vocab/lis/v2/membership#Learner',
      'Learner',
      'urn:lti:role:ims/lis/Learner',
    ].includes(r.trim()),
  )
}
