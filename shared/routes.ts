/**
 * The route table: every public route of the product, declared once. The CDK stack creates one
 * API Gateway route per row (integrated with the row's route-group Lambda) and the local gateway
 * matches requests against the same rows, so the two can never disagree.
 */

export type Scope = 'read' | 'write' | 'admin'
export type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE' | 'OPTIONS'

/** A route group is one Lambda: `functions/<group>/handler.ts`. */
export type RouteGroup =
  | 'users'
  | 'groups'
  | 'courses'
  | 'enrollments'
  | 'plans'
  | 'docs'
  | 'public'
  | 'webhooks'
  | 'fallback'
  | 'reports'
  | 'skills'
  | 'lti'
  | 'lti-admin'
  | 'billing'
  | 'integrations'

export interface RouteDef {
  readonly method: Method
  readonly path: string
  readonly group: RouteGroup
  /** null for public routes (no API key) */
  readonly scope: Scope | null
  /** Set when the route is deprecated: answered with Deprecation and Sunset headers. */
  readonly deprecation?: { readonly since: string; readonly sunset: string; readonly link?: string }
  /** Keyless routes open to abuse are limited per client IP address: `limit` per fixed window. */
  readonly perIp?: { readonly limit: number; readonly windowSeconds: number }
  /** Readable cross-origin by the corporate site (every answer, errors included, carries the grant). */
  readonly cors?: true
  /** Server-to-server (the billing orchestrator's): left out of the public API description. */
  readonly internal?: true
  /** The body is an HTML form (`application/x-www-form-urlencoded`), as LTI platforms post it. */
  readonly form?: true
  /** The handler reads this request's own minute and month counts: the month is counted before it runs. */
  readonly readsOwnUsage?: true
}

const r = (
  method: Method,
  path: string,
  group: RouteGroup,
  scope: Scope | null,
  extra: Pick<RouteDef, 'perIp' | 'cors' | 'internal' | 'form' | 'readsOwnUsage'> = {},
): RouteDef => ({ method, path, group, scope, ...extra })

const HOUR = 3600

/**
 * The LTI routes a stranger can call without a registered platform's signature, per client address
 * and route (decision 0020): a login writes a state item, a launch or deep link may make the tool
 * fetch a platform's key set. Room for a whole school behind one address starting a lesson.
 */
export const ltiPerIp: NonNullable<RouteDef['perIp']> = { limit: 300, windowSeconds: 300 }

export const routes: readonly RouteDef[] = [
  r('GET', '/api/v1/plans', 'plans', null, { cors: true }),
  r('OPTIONS', '/api/v1/plans', 'plans', null),
  r('GET', '/api/v1/docs', 'docs', null),
  r('GET', '/api/v1/openapi.json', 'docs', null),
  r('POST', '/api/v1/signup', 'public', null, { perIp: { limit: 5, windowSeconds: HOUR }, cors: true }),
  r('OPTIONS', '/api/v1/signup', 'public', null),
  r('POST', '/api/v1/contact', 'public', null, { perIp: { limit: 10, windowSeconds: HOUR }, cors: true }),
  r('OPTIONS', '/api/v1/contact', 'public', null),

  // The billing orchestrator's, with the platform secret instead of a key.
  r('GET', '/api/v1/billing/metrics', 'billing', null, { internal: true }),

  r('GET', '/api/v1/users', 'users', 'read'),
  r('POST', '/api/v1/users', 'users', 'write'),
  r('GET', '/api/v1/users/{id}', 'users', 'read'),
  r('PATCH', '/api/v1/users/{id}', 'users', 'write'),
  r('DELETE', '/api/v1/users/{id}', 'users', 'admin'),
  r('GET', '/api/v1/users/{id}/transcript', 'users', 'read'),

  r('GET', '/api/v1/groups', 'groups', 'read'),
  r('POST', '/api/v1/groups', 'groups', 'write'),
  r('GET', '/api/v1/groups/{id}', 'groups', 'read'),
  r('PATCH', '/api/v1/groups/{id}', 'groups', 'write'),
  r('DELETE', '/api/v1/groups/{id}', 'groups', 'admin'),
  r('GET', '/api/v1/groups/{id}/members', 'groups', 'read'),
  r('POST', '/api/v1/groups/{id}/members', 'groups', 'write'),
  r('DELETE', '/api/v1/groups/{id}/members', 'groups', 'write'),

  r('GET', '/api/v1/courses', 'courses', 'read'),
  r('POST', '/api/v1/courses', 'courses', 'write'),
  r('GET', '/api/v1/courses/{id}', 'courses', 'read'),
  r('PATCH', '/api/v1/courses/{id}', 'courses', 'write'),
  r('DELETE', '/api/v1/courses/{id}', 'courses', 'admin'),
  r('GET', '/api/v1/courses/{id}/modules', 'courses', 'read'),
  r('POST', '/api/v1/courses/{id}/modules', 'courses', 'write'),
  // Additions to the spec (api-additions section 4): course settings and module edits.
  r('GET', '/api/v1/courses/{id}/settings', 'courses', 'read'),
  r('PATCH', '/api/v1/courses/{id}/settings', 'courses', 'write'),
  r('PATCH', '/api/v1/courses/{id}/modules/{module_id}', 'courses', 'write'),
  r('DELETE', '/api/v1/courses/{id}/modules/{module_id}', 'courses', 'admin'),
  r('PUT', '/api/v1/courses/{id}/modules/order', 'courses', 'write'),
  r('GET', '/api/v1/courses/{id}/enrollments', 'courses', 'read'),
  r('POST', '/api/v1/courses/{id}/enrollments', 'courses', 'write'),

  r('GET', '/api/v1/enrollments', 'enrollments', 'read'),
  r('POST', '/api/v1/enrollments', 'enrollments', 'write'),
  r('POST', '/api/v1/enrollments/bulk', 'enrollments', 'write'),
  r('GET', '/api/v1/enrollments/{id}', 'enrollments', 'read'),
  r('PATCH', '/api/v1/enrollments/{id}', 'enrollments', 'write'),
  r('DELETE', '/api/v1/enrollments/{id}', 'enrollments', 'admin'),
  // Additions to the spec (api-additions section 4): the decisions `lms enrollment approve|deny` make.
  r('POST', '/api/v1/enrollments/{id}/approve', 'enrollments', 'write'),
  r('POST', '/api/v1/enrollments/{id}/deny', 'enrollments', 'write'),
  r('GET', '/api/v1/enrollments/{id}/progress', 'enrollments', 'read'),
  r('GET', '/api/v1/completions', 'enrollments', 'read'),

  // Skills (document 001). The person's routes name the user `{id}` as the users group does: one
  // path variable name per segment keeps API Gateway's routes and the local matcher consistent.
  r('GET', '/api/v1/job-roles', 'skills', 'read'),
  r('POST', '/api/v1/job-roles', 'skills', 'write'),
  r('GET', '/api/v1/job-roles/{id}', 'skills', 'read'),
  r('PATCH', '/api/v1/job-roles/{id}', 'skills', 'write'),
  r('PUT', '/api/v1/users/{id}/job-roles', 'skills', 'write'),
  r('GET', '/api/v1/users/{id}/skills', 'skills', 'read'),
  r('GET', '/api/v1/skills/matrix', 'skills', 'read'),
  // The catalogue (api-additions section 4): reads for any key, writes for admin; a person's held
  // level is set with write and taken away with admin. After the matrix: the local matcher takes
  // the first row that fits, and `matrix` is not a skill id.
  r('GET', '/api/v1/skill-domains', 'skills', 'read'),
  r('POST', '/api/v1/skill-domains', 'skills', 'admin'),
  r('GET', '/api/v1/skills', 'skills', 'read'),
  r('POST', '/api/v1/skills', 'skills', 'admin'),
  r('GET', '/api/v1/skills/{id}', 'skills', 'read'),
  r('PATCH', '/api/v1/skills/{id}', 'skills', 'admin'),
  r('PUT', '/api/v1/users/{id}/skills/{skill_id}', 'skills', 'write'),
  r('DELETE', '/api/v1/users/{id}/skills/{skill_id}', 'skills', 'admin'),
  r('GET', '/api/v1/reports/completions', 'reports', 'read'),
  r('GET', '/api/v1/reports/enrollments', 'reports', 'read'),
  r('GET', '/api/v1/reports/compliance', 'reports', 'read'),
  r('GET', '/api/v1/reports/users/activity', 'reports', 'read'),
  r('GET', '/api/v1/reports/courses/performance', 'reports', 'read'),
  r('POST', '/api/v1/reports/export', 'reports', 'read'),
  r('GET', '/api/v1/reports/export/{id}', 'reports', 'read'),
  // An addition to the spec (api-additions section 3): the calling key's minute and the tenant's month.
  r('GET', '/api/v1/usage', 'reports', 'read', { readsOwnUsage: true }),

  // An addition to the spec (its deliveries view is in the admin UI): admin scope, payloads included.
  r('GET', '/api/v1/webhooks/deliveries', 'webhooks', 'admin'),
  r('GET', '/api/v1/webhooks/deliveries/{id}', 'webhooks', 'admin'),
  r('POST', '/api/v1/webhooks/deliveries/{id}/retry', 'webhooks', 'admin'),
  // The events API (api-additions section 5; decision 0044): what the deliveries carried, read scope.
  r('GET', '/api/v1/events', 'webhooks', 'read'),
  r('GET', '/api/v1/events/{id}', 'webhooks', 'read'),
  // Tenant self-service settings (api-additions section 4): their own group, the one route group
  // that reads the key sealing secrets at rest (decision 0041).
  r('GET', '/api/v1/webhooks/endpoints', 'integrations', 'admin'),
  r('POST', '/api/v1/webhooks/endpoints', 'integrations', 'admin'),
  r('GET', '/api/v1/webhooks/endpoints/{id}', 'integrations', 'admin'),
  r('PATCH', '/api/v1/webhooks/endpoints/{id}', 'integrations', 'admin'),
  r('DELETE', '/api/v1/webhooks/endpoints/{id}', 'integrations', 'admin'),
  r('POST', '/api/v1/webhooks/endpoints/{id}/rotate-secret', 'integrations', 'admin'),
  r('POST', '/api/v1/webhooks/endpoints/{id}/replay', 'integrations', 'admin'),
  r('GET', '/api/v1/xapi/connection', 'integrations', 'admin'),
  r('PUT', '/api/v1/xapi/connection', 'integrations', 'admin'),
  r('DELETE', '/api/v1/xapi/connection', 'integrations', 'admin'),
  r('POST', '/api/v1/xapi/connection/test', 'integrations', 'admin'),

  // LTI 1.3 (spec 001; decision 0020): keyless, the platform's OIDC and JWT protocol instead.
  r('GET', '/api/v1/lti/login', 'lti', null, { perIp: ltiPerIp }),
  r('POST', '/api/v1/lti/login', 'lti', null, { form: true, perIp: ltiPerIp }),
  r('POST', '/api/v1/lti/launch', 'lti', null, { form: true, perIp: ltiPerIp }),
  r('POST', '/api/v1/lti/deep-link', 'lti', null, { form: true, perIp: ltiPerIp }),
  r('GET', '/api/v1/lti/.well-known/jwks.json', 'lti', null),
  // The pages a launch lands on, on the tenant's host (session cookie, no key).
  r('GET', '/learn/{id}', 'lti', null),
  r('POST', '/learn/{id}', 'lti', null, { form: true }),
  r('GET', '/catalog', 'lti', null),
  r('GET', '/login', 'lti', null),
  // The tenant's platform registrations (api-additions section 4): keyed, admin, in a function of
  // their own that cannot read the tool's signing key secret (decision 0043).
  r('GET', '/api/v1/lti/registrations', 'lti-admin', 'admin'),
  r('POST', '/api/v1/lti/registrations', 'lti-admin', 'admin'),
  r('GET', '/api/v1/lti/registrations/{id}', 'lti-admin', 'admin'),
  r('PATCH', '/api/v1/lti/registrations/{id}', 'lti-admin', 'admin'),
  r('DELETE', '/api/v1/lti/registrations/{id}', 'lti-admin', 'admin'),
  r('POST', '/api/v1/lti/registrations/{id}/deployments', 'lti-admin', 'admin'),
  r('DELETE', '/api/v1/lti/registrations/{id}/deployments/{deployment_id}', 'lti-admin', 'admin'),
  // LTI Dynamic Registration (api-additions sections 4 and 6; decision 0051): an admin's one-time
  // link, and the link itself, opened keyless by a platform administrator. Served by `lti-admin`,
  // which writes registrations and cannot read the tool's signing keys (it needs none).
  r('POST', '/api/v1/lti/registration-links', 'lti-admin', 'admin'),
  r('GET', '/api/v1/lti/dynamic-registration/{token}', 'lti-admin', null, { perIp: ltiPerIp }),
]

/**
 * Failed authentications per client address, over every keyed route: a well-formed key that the
 * store does not know or refuses costs a strongly consistent read, so an address past this many in
 * one fixed window is refused (429) before any key is read until the window ends.
 */
export const failedAuthPerIp: NonNullable<RouteDef['perIp']> = { limit: 20, windowSeconds: 300 }

/** Everything that matches no row (including the unavailable endpoints) goes to this group. */
export const fallbackGroup: RouteGroup = 'fallback'

export const routeGroups: readonly RouteGroup[] = [
  ...new Set<RouteGroup>([...routes.map((x) => x.group), fallbackGroup]),
]

export const routeKey = (def: Pick<RouteDef, 'method' | 'path'>): string => `${def.method} ${def.path}`

interface CompiledRoute {
  readonly def: RouteDef
  readonly pattern: RegExp
  readonly params: readonly string[]
}

/** Only the local gateway matches paths (API Gateway does it in AWS): compiled on its first match, not at every Lambda's import. */
let compiledRoutes: readonly CompiledRoute[] | undefined
const compile = (): readonly CompiledRoute[] =>
  routes.map((def) => {
    const params: string[] = []
    const source = def.path
      .split('/')
      .map((segment) => {
        const param = /^\{(\w+)\}$/.exec(segment)?.[1]
        if (param === undefined) return segment.replace(/[.*+?^$()|[\]\\-]/g, '\\$&')
        params.push(param)
        return '([^/]+)'
      })
      .join('/')
    return { def, pattern: new RegExp(`^${source}$`), params }
  })

function decodeSegment(raw: string): string {
  try {
    return decodeURIComponent(raw)
  } catch {
    return raw
  }
}

export interface RouteMatch {
  readonly def: RouteDef
  readonly pathParameters: Record<string, string>
}

/** Matches the way API Gateway does: exact method and path template; a trailing slash is no match. */
export function matchRoute(method: string, path: string): RouteMatch | undefined {
  for (const c of (compiledRoutes ??= compile())) {
    if (c.def.method !== method) continue
    const m = c.pattern.exec(path)
    if (!m) continue
    const pathParameters: Record<string, string> = {}
    c.params.forEach((name, i) => {
      pathParameters[name] = decodeSegment(m[i + 1] ?? '')
    })
    return { def: c.def, pathParameters }
  }
  return undefined
}

const byKey = new Map(routes.map((def) => [routeKey(def), def]))

export function routeByKey(key: string): RouteDef | undefined {
  return byKey.get(key)
}
