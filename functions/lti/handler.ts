/**
 * Route group `lti`: LTI 1.3 provider mode (spec 001 "LTI 1.3 routes", decision 0020) and the
 * pages a launch lands on. Keyless: the tenant comes from the host, the platform is trusted through
 * its registration and signatures, the learner through the session cookie a launch sets.
 */
import type { HttpEvent, HttpResult } from '../../shared/http/context.ts'
import { errorResult } from '../../shared/http/responses.ts'
import { publicRoute, type PublicInput } from '../../shared/http/route.ts'
import { httpStack } from '../../shared/http/stack.ts'
import { resolveTenant } from '../../shared/http/tenant-from-host.ts'
import { toolUrls } from '../../shared/http/tool-urls.ts'
import { NotFoundError } from '../../shared/domain/errors.ts'
import { Uuid } from '../../shared/domain/validation.ts'
import {
  launchErrorCodes,
  LaunchRefused,
  LOGIN_STATE_SECONDS,
  oversizedLoginParam,
  SESSION_SECONDS,
} from '../../shared/domain/lti/lti.ts'
import { tenantServes, type Tenant } from '../../shared/domain/tenants/tenant.ts'
import type { User } from '../../shared/domain/users/user.ts'
import * as v from 'valibot'
import { errorFields, log } from '../../shared/log.ts'
import { publishedJwks } from '../../shared/services/lti/lti-keys-service.ts'
import type { JwksSchema } from './representation.ts'
import { accountFor } from '../../shared/services/lti/lti-accounts-service.ts'
import {
  login,
  stateCookieName,
  verifyMessage,
  type LoginParams,
  type ToolUrls,
} from '../../shared/services/lti/lti-launch-service.ts'
import {
  catalog,
  completeFromPage,
  coursePage,
  deepLinkingResponse,
  enrolFromPage,
  landingPath,
  SESSION_COOKIE,
  sessionUser,
  signIn,
  type PagePostOutcome,
} from '../../shared/services/lti/lti-learner-service.ts'
import { csrfTokenFits, csrfTokenFor } from '../../shared/domain/lti/learner-csrf.ts'
import { syncOnInstructorLaunch } from '../../shared/services/lti/lti-roster-service.ts'
import * as pages from './pages.ts'

function cookies(event: HttpEvent): Map<string, string> {
  const raw = event.cookies ?? (event.headers?.cookie ? event.headers.cookie.split(';') : [])
  const out = new Map<string, string>()
  for (const c of raw) {
    const eq = c.indexOf('=')
    if (eq > 0) out.set(c.slice(0, eq).trim(), c.slice(eq + 1).trim())
  }
  return out
}

/**
 * Cookies the platform's cross-site form post must carry back: SameSite=None, hence Secure. Browsers
 * treat http://localhost and *.localhost as secure contexts, so the local stack sets them the same.
 */
const cookie = (name: string, value: string, path: string, maxAge: number) =>
  `${name}=${value}; Path=${path}; Max-Age=${maxAge}; HttpOnly; Secure; SameSite=None`

const redirect = (location: string, setCookies: string[] = []): HttpResult => ({
  statusCode: 302,
  headers: { location, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' },
  ...(setCookies.length ? { cookies: setCookies } : {}),
})

const toLogin = (urls: ToolUrls, code: string, setCookies: string[] = []) =>
  redirect(`${urls.origin}/login?error=${encodeURIComponent(code)}`, setCookies)

/** The tenant of the host, or undefined (unknown host, or a tenant that does not serve). */
async function servingTenant(event: HttpEvent): Promise<Tenant | undefined> {
  const tenant = await resolveTenant(event)
  return tenantServes(tenant.status) ? tenant : undefined
}

const field = (input: PublicInput, name: string): string | undefined => {
  const body = input.body
  const fromBody = body && typeof body === 'object' ? (body as Record<string, unknown>)[name] : undefined
  const v = typeof fromBody === 'string' ? fromBody : input.query[name]
  return v === undefined ? undefined : String(v)
}

async function handleLogin(input: PublicInput): Promise<HttpResult> {
  const urls = toolUrls(input.event)
  const params: LoginParams = {
    iss: field(input, 'iss'),
    login_hint: field(input, 'login_hint'),
    target_link_uri: field(input, 'target_link_uri'),
    client_id: field(input, 'client_id'),
    lti_message_hint: field(input, 'lti_message_hint'),
  }
  const missing = (['iss', 'login_hint', 'target_link_uri'] as const).filter((k) => !params[k]?.trim())
  if (missing.length > 0) return errorResult(400, 'missing_required_params', { missing })
  const tenant = await servingTenant(input.event)
  if (!tenant) return toLogin(urls, 'SamlNotConfigured')
  const oversized = oversizedLoginParam({ ...params })
  if (oversized) {
    log('info', 'lti login refused', {
      tenantId: tenant.id,
      code: 'SamlInvalidAssertion',
      reason: `${oversized} too long`,
    })
    return toLogin(urls, 'SamlInvalidAssertion')
  }
  const outcome = await login(tenant, params, urls)
  if (outcome.kind === 'missing')
    return errorResult(400, 'missing_required_params', { missing: outcome.fields })
  if (outcome.kind === 'refused') {
    log('info', 'lti login refused', { tenantId: tenant.id, code: outcome.code, reason: outcome.reason })
    return toLogin(urls, outcome.code)
  }
  return redirect(outcome.location, [
    cookie(stateCookieName(outcome.state), '1', '/api/v1/lti', LOGIN_STATE_SECONDS),
  ])
}

export const getLogin = publicRoute('GET /api/v1/lti/login', handleLogin)
export const postLogin = publicRoute('POST /api/v1/lti/login', handleLogin)

/** Launch and deep link share every check; they differ in message type and in what they answer. */
async function verified(input: PublicInput, kind: 'launch' | 'deep_link') {
  const tenant = await servingTenant(input.event)
  if (!tenant) throw new LaunchRefused('SamlNotConfigured', 'tenant does not serve')
  const state = field(input, 'state')
  const message = await verifyMessage(tenant, kind, {
    idToken: field(input, 'id_token'),
    state,
    stateCookie: state !== undefined && cookies(input.event).has(stateCookieName(state)),
  })
  return { tenant, message, state }
}

/**
 * Every failure of a launch or deep link ends on the login page with a code and no detail (spec
 * 001): a refusal with its own code; anything else (a claim the users API would not take, a store
 * failure) with SamlInvalidAssertion, logged as an error. Only an unknown host stays a 404: there
 * is no tenant whose login page could show it.
 */
function refused(input: PublicInput, err: unknown, route: string): HttpResult {
  if (err instanceof NotFoundError && err.code === 'tenant.not_found') throw err
  if (err instanceof LaunchRefused) {
    log('info', 'lti message refused', { route, code: err.code, reason: err.reason })
    return toLogin(toolUrls(input.event), err.code)
  }
  log('error', 'lti message failed', { route, ...errorFields(err) })
  return toLogin(toolUrls(input.event), 'SamlInvalidAssertion')
}

const clearState = (state: string | undefined) =>
  state ? [cookie(stateCookieName(state), '', '/api/v1/lti', 0)] : []

export const postLaunch = publicRoute('POST /api/v1/lti/launch', async (input) => {
  const urls = toolUrls(input.event)
  try {
    const { tenant, message, state } = await verified(input, 'launch')
    const user = await accountFor(tenant, message.registration.issuer, message.claims)
    const session = await signIn(tenant, user)
    const landing = await landingPath(tenant, message, user)
    await syncOnInstructorLaunch(tenant, message)
    return redirect(`${urls.origin}${landing}`, [
      cookie(SESSION_COOKIE, session, '/', SESSION_SECONDS),
      ...clearState(state),
    ])
  } catch (err) {
    return refused(input, err, 'launch')
  }
})

export const postDeepLink = publicRoute('POST /api/v1/lti/deep-link', async (input) => {
  const urls = toolUrls(input.event)
  try {
    const { tenant, message } = await verified(input, 'deep_link')
    if (!message.registration.deepLinking)
      throw new LaunchRefused('SamlNotConfigured', 'deep linking is off for this registration')
    const response = await deepLinkingResponse(tenant, message, urls)
    if (!response) throw new LaunchRefused('SamlInvalidAssertion', 'deep_link_return_url missing or invalid')
    return pages.autoSubmitForm(response.returnUrl, response.jwt, pages.frameAncestorsFor(urls.origin))
  } catch (err) {
    return refused(input, err, 'deep-link')
  }
})

/** The JWK Set itself (not the envelope): platforms read it as RFC 7517 defines it. */
export const getJwks = publicRoute('GET /api/v1/lti/.well-known/jwks.json', async ({ event }) => {
  const tenant = await resolveTenant(event)
  return {
    statusCode: 200,
    headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'public, max-age=3600' },
    body: JSON.stringify((await publishedJwks(tenant)) satisfies v.InferOutput<typeof JwksSchema>),
  }
})

export const getLoginPage = publicRoute('GET /login', async ({ event, query }) => {
  const code = query.error
  const shown = launchErrorCodes.find((c) => c === code)
  return pages.loginPage(
    code === undefined ? undefined : (shown ?? 'SamlInvalidAssertion'),
    pages.frameAncestorsFor(toolUrls(event).origin),
  )
})

/** The learner of the session (undefined: the login page says so by code) and the session itself. */
async function learner(event: HttpEvent) {
  const tenant = await resolveTenant(event)
  const session = cookies(event).get(SESSION_COOKIE) ?? ''
  const user = await sessionUser(tenant, session)
  return { tenant, user, session }
}

export const getCatalog = publicRoute('GET /catalog', async ({ event }) => {
  const frame = pages.frameAncestorsFor(toolUrls(event).origin)
  const { tenant, user } = await learner(event)
  if (!user) return pages.loginPage('SamlInvalidAssertion', frame)
  return pages.catalogPage(await catalog(tenant), frame)
})

/** Course and module ids are UUIDs: anything else names nothing (and is never looked up). */
const uuidOr = (value: string | undefined): string | undefined => (v.is(Uuid, value) ? value : undefined)

export const getCourse = publicRoute('GET /learn/{id}', async ({ event, path }) => {
  const frame = pages.frameAncestorsFor(toolUrls(event).origin)
  const { tenant, user, session } = await learner(event)
  if (!user) return pages.loginPage('SamlInvalidAssertion', frame)
  const courseId = uuidOr(path.id)
  const view = courseId ? await coursePage(tenant, user, courseId) : ({ kind: 'not_found' } as const)
  const csrf = csrfTokenFor(session)
  if (view.kind === 'not_found') return pages.problemPage(404, user.locale, frame)
  if (view.kind === 'not_enrolled') return pages.notEnrolledPage(view.course, csrf, user.locale, frame)
  return pages.coursePage(view, csrf, user.locale, frame)
})

/**
 * The course page's forms: `module_id` marks that module complete, without it the post enrols.
 * Nothing is read or written before the session's CSRF token is checked. Post/redirect/get: a
 * done post answers 303 to the page, so a reload shows the page instead of posting again.
 */
export const postCoursePage = publicRoute('POST /learn/{id}', async (input) => {
  const urls = toolUrls(input.event)
  const frame = pages.frameAncestorsFor(urls.origin)
  const { tenant, user, session } = await learner(input.event)
  if (!user) return pages.loginPage('SamlInvalidAssertion', frame)
  if (!csrfTokenFits(session, field(input, 'csrf_token'))) return pages.problemPage(403, user.locale, frame)
  const courseId = uuidOr(input.path.id)
  const outcome = courseId ? await pagePost(tenant, user, courseId, field(input, 'module_id')) : notFound
  if (outcome.kind === 'not_found') return pages.problemPage(404, user.locale, frame)
  if (outcome.kind === 'refused') return pages.problemPage(409, user.locale, frame, outcome.code)
  return { ...redirect(`${urls.origin}/learn/${encodeURIComponent(courseId ?? '')}`), statusCode: 303 }
})

const notFound: PagePostOutcome = { kind: 'not_found' }

/** Which form was posted: the enrol form has no `module_id`. */
function pagePost(tenant: Tenant, user: User, courseId: string, moduleField: string | undefined) {
  if (moduleField === undefined) return enrolFromPage(tenant, user, courseId)
  const moduleId = uuidOr(moduleField)
  return moduleId ? completeFromPage(tenant, user, courseId, moduleId) : Promise.resolve(notFound)
}

export const handler = httpStack([
  getLogin,
  postLogin,
  postLaunch,
  postDeepLink,
  getJwks,
  getLoginPage,
  getCatalog,
  getCourse,
  postCoursePage,
])
