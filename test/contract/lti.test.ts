/**
 * LTI 1.3 provider (spec 001 "LTI 1.3 routes", decision 0020), driven through HTTP by a platform
 * written in the tests (test/helpers/lti-platform.ts): login, launch, the pages it lands on, JWKS,
 * just-in-time accounts, and every refused launch by its own test.
 */
import { createHmac } from 'node:crypto'
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest'
import { decodeProtectedHeader } from 'jose'
import { addDeployment, register } from '../../shared/services/lti/lti-registrations-service.ts'
import { call } from '../helpers/http.ts'
import { course, user } from '../helpers/learning.ts'
import {
  cookiesOf,
  launchClaims,
  LTI,
  postForm,
  startLogin,
  registerPlatform,
  startPlatform,
  type Platform,
} from '../helpers/lti-platform.ts'
import { untilAllRelayed } from '../helpers/outbox.ts'
import { newTenant, userBody, type TestTenant } from '../helpers/tenants.ts'
import { operator } from '../../shared/domain/actor.ts'
import { CreateUserInput } from '../../shared/domain/users/user-schemas.ts'
import { parseOrThrow } from '../../shared/domain/validation.ts'
import { createUser } from '../../shared/services/users/users-service.ts'
import { getUserCounters } from '../../shared/store/users/users-store.ts'

let t: TestTenant
let platform: Platform
let host: string
let launchUrl: string
let registrationId: string

beforeEach(async () => {
  t = await newTenant('growth')
  platform = await startPlatform()
  host = `${t.slug}.localhost`
  launchUrl = `http://${host}/api/v1/lti/launch`
  registrationId = await registerPlatform(t.tenant, platform)
})

afterEach(() => platform.close())

/** A whole launch: login, then the form_post of `claims` signed as given (the platform's key by default). */
async function launch(
  extra: Record<string, unknown> = {},
  sign?: (claims: Record<string, unknown>) => Promise<string>,
) {
  const login = await startLogin(host, platform, launchUrl)
  expect(login.reply.status).toBe(302)
  const claims = launchClaims(platform, login.nonce, extra)
  const token = await (sign ?? platform.sign)(claims)
  const reply = await postForm(
    host,
    '/api/v1/lti/launch',
    { id_token: token, state: login.state },
    login.cookie,
  )
  return { reply, login, claims, token }
}

async function allUsers(): Promise<{ id: string; email: string; role: string; last_name: string }[]> {
  const r = await t.api.get('/api/v1/users?per_page=200')
  expect(r.status).toBe(200)
  return r.body.data
}

/** The CSRF token a course page's forms carry. */
const csrfOf = (page: string): string => {
  const token = /name="csrf_token" value="([^"]+)"/.exec(page)?.[1] ?? ''
  expect(token).not.toBe('')
  return token
}

const errorOf = (location: unknown) => new URL(String(location)).searchParams.get('error')

describe('login', () => {
  it('answers 400 missing_required_params in the envelope, naming what is missing (GET and POST)', async () => {
    const get = await call('GET', `/api/v1/lti/login?iss=${encodeURIComponent(platform.issuer)}`, { host })
    expect(get.status).toBe(400)
    expect(get.body).toEqual({
      data: null,
      meta: null,
      error: { code: 400, message: 'missing_required_params', missing: ['login_hint', 'target_link_uri'] },
    })
    const post = await postForm(host, '/api/v1/lti/login', { login_hint: 'x' })
    expect(post.status).toBe(400)
    expect(post.body.error.missing).toEqual(['iss', 'target_link_uri'])
  })

  it('redirects to the registered authorization endpoint with the OIDC parameters and binds state to a cookie', async () => {
    const reply = await call(
      'GET',
      `/api/v1/lti/login?${new URLSearchParams({
        iss: platform.issuer,
        login_hint: 'hint-1',
        target_link_uri: launchUrl,
        client_id: platform.clientId,
        lti_message_hint: 'msg-hint',
      })}`,
      { host },
    )
    expect(reply.status).toBe(302)
    const location = new URL(String(reply.headers.location))
    expect(`${location.origin}${location.pathname}`).toBe(platform.authUrl)
    const q = Object.fromEntries(location.searchParams)
    expect(q).toMatchObject({
      scope: 'openid',
      response_type: 'id_token',
      response_mode: 'form_post',
      prompt: 'none',
      client_id: platform.clientId,
      redirect_uri: launchUrl,
      login_hint: 'hint-1',
      lti_message_hint: 'msg-hint',
    })
    expect(q.state).toMatch(/^[\w-]{20,}$/)
    expect(q.nonce).toMatch(/^[\w-]{20,}$/)
    const setCookie = String(reply.headers['set-cookie'])
    expect(setCookie).toContain(`lms_lti_state_${q.state}=`)
    expect(setCookie).toMatch(/HttpOnly/)
    expect(setCookie).toMatch(/Secure/)
    expect(setCookie).toMatch(/SameSite=None/)
  })

  it('never redirects to a URL the request alone supplies', async () => {
    const reply = await postForm(host, '/api/v1/lti/login', {
      iss: platform.issuer,
      login_hint: 'x',
      target_link_uri: 'https://evil.example.com/steal',
      client_id: platform.clientId,
    })
    expect(reply.status).toBe(302)
    expect(String(reply.headers.location)).toBe(`http://${host}/login?error=SamlNotConfigured`)
  })

  it('sends an unknown issuer to the login page with SamlNotConfigured', async () => {
    const reply = await postForm(host, '/api/v1/lti/login', {
      iss: 'https://unknown.example.com',
      login_hint: 'x',
      target_link_uri: launchUrl,
    })
    expect(errorOf(reply.headers.location)).toBe('SamlNotConfigured')
  })
})

describe('launch', () => {
  it('creates the learner, signs them in and lands on the catalog; the same platform user comes back as the same user', async () => {
    const { reply, claims } = await launch()
    expect(reply.status).toBe(302)
    expect(String(reply.headers.location)).toBe(`http://${host}/catalog`)
    const setCookie = ([] as string[]).concat(reply.headers['set-cookie'] ?? [])
    const session = setCookie.find((c) => c.startsWith('lms_session='))
    expect(session).toMatch(/HttpOnly/)
    expect(session).toMatch(/Secure/)
    expect(session).toMatch(/SameSite=None/)
    expect(session).toMatch(/Max-Age=3600/)

    const users = await allUsers()
    expect(users).toHaveLength(1)
    expect(users[0]).toMatchObject({
      email: claims.email,
      first_name: 'Grace',
      last_name: 'Hopper',
      role: 'learner',
    })

    // Later launches find the person by (issuer, sub), even with another e-mail and role claim.
    const again = await launch({
      sub: claims.sub,
      email: 'renamed@example.com',
      [LTI.roles]: ['http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor'],
    })
    expect(again.reply.status).toBe(302)
    const after = await allUsers()
    expect(after).toHaveLength(1)
    expect(after[0]?.role).toBe('learner')
  })

  it('maps Instructor and Administrator roles to instructor, and uses a synthetic address without an e-mail claim', async () => {
    await launch({
      email: undefined,
      given_name: undefined,
      family_name: undefined,
      name: 'Alan Mathison Turing',
      [LTI.roles]: ['http://purl.imsglobal.org/vocab/lis/v2/institution/person#Administrator'],
    })
    const users = await allUsers()
    expect(users).toHaveLength(1)
    expect(users[0]).toMatchObject({ first_name: 'Alan Mathison', last_name: 'Turing', role: 'instructor' })
    expect(users[0]?.email).toMatch(/^lti-[0-9a-f]+@lti\.invalid$/)
  })

  it('reuses an active user with the claimed e-mail (lowercased) and refuses an inactive one with AccountInactive', async () => {
    const existing = await user(t, { email: 'known.person@example.com' })
    const ok = await launch({ email: 'Known.Person@Example.com' })
    expect(String(ok.reply.headers.location)).toBe(`http://${host}/catalog`)
    expect((await allUsers()).map((u) => u.id)).toEqual([existing.id])

    const inactive = await user(t, { email: 'gone@example.com' })
    expect((await t.api.delete(`/api/v1/users/${inactive.id}`)).status).toBe(204)
    const refused = await launch({ email: 'gone@example.com' })
    expect(errorOf(refused.reply.headers.location)).toBe('AccountInactive')
  })

  it('creates a real user: user.created is emitted, and a full seat cap refuses with AccountInactive', async () => {
    const { claims } = await launch()
    const events = await untilAllRelayed(t.tenant)
    const [created] = await allUsers()
    expect(events.filter((e) => e.event === 'user.created').map((e) => e.data.userId)).toEqual([created?.id])
    expect(created?.email).toBe(claims.email)
    expect((await getUserCounters(t.tenant)).active).toBe(1)

    const free = await newTenant('free')
    // The free plan has no API access: its five seats are filled as the app would.
    for (let i = 0; i < 5; i++)
      await createUser(free.tenant, parseOrThrow(CreateUserInput, userBody()), operator)
    const reg = await register(free.tenant, {
      issuer: platform.issuer,
      clientId: platform.clientId,
      jwksUrl: platform.jwksUrl,
      authUrl: platform.authUrl,
    })
    await addDeployment(free.tenant, reg.id, 'deployment-1', null)
    const freeHost = `${free.slug}.localhost`
    const login = await startLogin(freeHost, platform, `http://${freeHost}/api/v1/lti/launch`)
    const token = await platform.sign(launchClaims(platform, login.nonce))
    const reply = await postForm(
      freeHost,
      '/api/v1/lti/launch',
      { id_token: token, state: login.state },
      login.cookie,
    )
    expect(String(reply.headers.location)).toBe(`http://${freeHost}/login?error=AccountInactive`)
    expect((await getUserCounters(free.tenant)).active).toBe(5)
  })

  it('never signs a platform user in as an owner or admin by e-mail (takeover attempt)', async () => {
    const admin = await user(t, { email: 'the.admin@example.com', role: 'admin' })
    const { reply } = await launch({ email: 'the.admin@example.com' })
    expect(reply.status).toBe(302)
    expect(String(reply.headers.location)).toBe(`http://${host}/login?error=SamlInvalidAssertion`)
    expect(cookiesOf(reply)).not.toContain('lms_session=')
    const still = await t.api.get(`/api/v1/users/${admin.id}`)
    expect(still.body.data.role).toBe('admin')
  })

  it('lands on the deployment course, enrols the learner through the engine and shows modules and progress', async () => {
    const c = await course(t, { modules: [{ title: 'Welcome video', module_type: 'video' }] })
    await addDeployment(t.tenant, registrationId, 'deployment-course', c.id)
    const { reply } = await launch({ [LTI.deploymentId]: 'deployment-course' })
    expect(String(reply.headers.location)).toBe(`http://${host}/learn/${c.id}`)
    const page = await call('GET', `/learn/${c.id}`, { host, headers: { cookie: cookiesOf(reply) } })
    expect(page.status).toBe(200)
    expect(page.headers['content-type']).toMatch(/text\/html/)
    expect(page.headers['x-frame-options']).toBeUndefined()
    expect(String(page.headers['content-security-policy'])).toContain('frame-ancestors')
    expect(page.text).toContain(c.title)
    expect(page.text).toContain('Welcome video')
    expect(page.text).toContain('Progress: 0%')
    const enrollments = await t.api.get(`/api/v1/courses/${c.id}/enrollments`)
    expect(enrollments.body.data).toHaveLength(1)

    const catalogPage = await call('GET', '/catalog', { host, headers: { cookie: cookiesOf(reply) } })
    expect(catalogPage.text).toContain(c.title)
    const noSession = await call('GET', '/catalog', { host })
    expect(noSession.status).toBe(401)
    expect(noSession.text).not.toContain(c.title)
  })

  it('never enrols on a GET: a learner without an enrollment is told so, and the enrol form posts with the CSRF token', async () => {
    const picked = await course(t, { modules: [{ title: 'Picked module', module_type: 'video' }] })
    const { reply } = await launch()
    const session = cookiesOf(reply)
    const enrolled = async () => (await t.api.get(`/api/v1/courses/${picked.id}/enrollments`)).body.data

    // Any site can make the learner's browser fetch this page (the cookie is SameSite=None).
    const page = await call('GET', `/learn/${picked.id}`, { host, headers: { cookie: session } })
    expect(page.status).toBe(200)
    expect(page.text).toContain(picked.title)
    expect(page.text).toContain('You are not enrolled in this course.')
    expect(page.text).toContain('id="enrol"')
    expect(page.text).not.toContain('Picked module')
    expect(String(page.headers['content-security-policy'])).toContain("form-action 'self'")
    expect(await enrolled()).toHaveLength(0)
    const csrf = csrfOf(page.text)

    // A forged post has no token, a wrong one, or no session: nothing is written.
    for (const [fields, cookie, status] of [
      [{}, session, 403],
      [{ csrf_token: 'forged' }, session, 403],
      [{ csrf_token: csrf }, undefined, 401],
    ] as const) {
      const refused = await postForm(host, `/learn/${picked.id}`, fields, cookie)
      expect(refused.status).toBe(status)
    }
    expect(await enrolled()).toHaveLength(0)

    const posted = await postForm(host, `/learn/${picked.id}`, { csrf_token: csrf }, session)
    expect(posted.status).toBe(303)
    expect(String(posted.headers.location)).toBe(`http://${host}/learn/${picked.id}`)
    expect(await enrolled()).toHaveLength(1)
    const again = await postForm(host, `/learn/${picked.id}`, { csrf_token: csrf }, session)
    expect(again.status).toBe(303)
    expect(await enrolled()).toHaveLength(1)
    const course_ = await call('GET', `/learn/${picked.id}`, { host, headers: { cookie: session } })
    expect(course_.text).toContain('Picked module')
    expect(course_.text).toContain('Progress: 0%')
  })

  it("completes a module only with the CSRF token of the learner's own session", async () => {
    const c = await course(t, {
      modules: [
        { title: 'Part one', module_type: 'video' },
        { title: 'Part two', module_type: 'document' },
      ],
    })
    await addDeployment(t.tenant, registrationId, 'deployment-csrf', c.id)
    const mine = cookiesOf((await launch({ [LTI.deploymentId]: 'deployment-csrf' })).reply)
    const other = cookiesOf((await launch({ [LTI.deploymentId]: 'deployment-csrf' })).reply)
    const pageOf = (cookie: string) => call('GET', `/learn/${c.id}`, { host, headers: { cookie } })
    const myPage = await pageOf(mine)
    const myCsrf = csrfOf(myPage.text)
    const otherCsrf = csrfOf((await pageOf(other)).text)
    expect(otherCsrf).not.toBe(myCsrf)
    const moduleId = c.modules[0]?.id ?? ''
    const mineId = /id="complete-([^"]+)"/.exec(myPage.text)?.[1]
    expect(mineId).toBe(moduleId)
    const progressOf = async () => {
      const list = (await t.api.get(`/api/v1/courses/${c.id}/enrollments`)).body.data as {
        progress_percent: number
      }[]
      return list.map((e) => e.progress_percent)
    }

    for (const fields of [
      { module_id: moduleId } as Record<string, string>,
      { module_id: moduleId, csrf_token: '' },
      // One character changed (never to itself: a token ending in A would stay valid).
      { module_id: moduleId, csrf_token: `${myCsrf.slice(0, -1)}${myCsrf.endsWith('A') ? 'B' : 'A'}` },
      { module_id: moduleId, csrf_token: otherCsrf },
    ]) {
      const refused = await postForm(host, `/learn/${c.id}`, fields, mine)
      expect(refused.status).toBe(403)
      expect(refused.headers['content-type']).toMatch(/text\/html/)
    }
    expect(await progressOf()).toEqual([0, 0])

    const done = await postForm(host, `/learn/${c.id}`, { module_id: moduleId, csrf_token: myCsrf }, mine)
    expect(done.status).toBe(303)
    expect(String(done.headers.location)).toBe(`http://${host}/learn/${c.id}`)
    expect((await progressOf()).sort()).toEqual([0, 50])
    expect((await pageOf(mine)).text).toContain('Progress: 50%')
    // Posted twice (a double click): the module stays completed, nothing moves.
    const twice = await postForm(host, `/learn/${c.id}`, { module_id: moduleId, csrf_token: myCsrf }, mine)
    expect(twice.status).toBe(303)
    expect((await progressOf()).sort()).toEqual([0, 50])
    // A module of no course of the learner's: 404, and still nothing moves.
    const unknown = await postForm(
      host,
      `/learn/${c.id}`,
      { module_id: '00000000-0000-4000-8000-000000000000', csrf_token: myCsrf },
      mine,
    )
    expect(unknown.status).toBe(404)
    expect((await progressOf()).sort()).toEqual([0, 50])
  })

  it("records a launch as a sign-in: last_login_at, the activity report and the period's active users", async () => {
    const activeUsers = async () =>
      (
        await call('GET', `/api/v1/billing/metrics?tenantId=${t.tenant.id}`, {
          headers: { authorization: `Bearer ${inject('platformMetricsSecret')}` },
        })
      ).body.data.activeUsersInPeriod
    expect(await activeUsers()).toBe(0)
    const started = new Date().toISOString()
    await launch()
    const [signedIn] = await allUsers()
    const read = await t.api.get(`/api/v1/users/${signedIn?.id}`)
    expect(read.body.data.last_login_at >= started).toBe(true)
    const report = await t.api.get('/api/v1/reports/users/activity')
    expect(report.body.data.map((row: { user_id: string }) => row.user_id)).toEqual([signedIn?.id])
    expect(await activeUsers()).toBe(1)
  })

  it('shows only the error code on the login page', async () => {
    const page = await call('GET', '/login?error=AccountInactive', { host })
    expect(page.text).toContain('AccountInactive')
    const forged = await call('GET', `/login?error=${encodeURIComponent('<script>x</script>')}`, { host })
    expect(forged.text).not.toContain('<script>x')
    expect(forged.text).toContain('SamlInvalidAssertion')
  })
})

describe('refused launches', () => {
  const refusedWith = async (
    code: string,
    extra: Record<string, unknown> = {},
    sign?: (c: Record<string, unknown>) => Promise<string>,
  ) => {
    const { reply } = await launch(extra, sign)
    expect(reply.status).toBe(302)
    expect(String(reply.headers.location)).toBe(`http://${host}/login?error=${code}`)
    expect(cookiesOf(reply)).not.toContain('lms_session=')
  }

  it('bad signature', async () => {
    const other = await startPlatform()
    // Signed by another key under the platform's kid.
    await refusedWith('SamlInvalidAssertion', {}, async (c) => {
      const token = await other.sign(c)
      const [, payload, sig] = token.split('.')
      const header = Buffer.from(JSON.stringify({ alg: 'RS256', kid: platform.kid, typ: 'JWT' })).toString(
        'base64url',
      )
      return `${header}.${payload}.${sig}`
    })
    await other.close()
  })

  it('alg none', async () => {
    await refusedWith('SamlInvalidAssertion', {}, async (c) => {
      const header = Buffer.from(JSON.stringify({ alg: 'none', kid: platform.kid })).toString('base64url')
      return `${header}.${Buffer.from(JSON.stringify(c)).toString('base64url')}.`
    })
  })

  it('HS256 signed with the public key', async () => {
    await refusedWith('SamlInvalidAssertion', {}, async (c) => {
      const header = Buffer.from(JSON.stringify({ alg: 'HS256', kid: platform.kid })).toString('base64url')
      const body = Buffer.from(JSON.stringify(c)).toString('base64url')
      const mac = createHmac('sha256', platform.publicPem).update(`${header}.${body}`).digest('base64url')
      return `${header}.${body}.${mac}`
    })
  })

  it('expired token', async () => {
    const now = Math.floor(Date.now() / 1000)
    await refusedWith('SamlInvalidAssertion', { iat: now - 900, exp: now - 600 })
  })

  it('wrong audience', async () => {
    await refusedWith('SamlNotConfigured', { aud: 'another-client' })
  })

  it('several audiences without an azp naming the client', async () => {
    await refusedWith('SamlInvalidAssertion', { aud: [platform.clientId, 'another'] })
  })

  it('several audiences with azp naming the client are accepted', async () => {
    const { reply } = await launch({ aud: [platform.clientId, 'another'], azp: platform.clientId })
    expect(String(reply.headers.location)).toBe(`http://${host}/catalog`)
  })

  it('missing message type', async () => {
    await refusedWith('SamlInvalidAssertion', { [LTI.messageType]: undefined })
  })

  it('wrong version', async () => {
    await refusedWith('SamlInvalidAssertion', { [LTI.version]: '1.1' })
  })

  it('unknown deployment', async () => {
    await refusedWith('SamlInvalidAssertion', { [LTI.deploymentId]: 'not-registered' })
  })

  it('inactive registration', async () => {
    const login = await startLogin(host, platform, launchUrl)
    const { deactivate } = await import('../../shared/services/lti/lti-registrations-service.ts')
    await deactivate(t.tenant, registrationId)
    const token = await platform.sign(launchClaims(platform, login.nonce))
    const reply = await postForm(
      host,
      '/api/v1/lti/launch',
      { id_token: token, state: login.state },
      login.cookie,
    )
    expect(errorOf(reply.headers.location)).toBe('SamlNotConfigured')
  })

  it('state not bound to this browser (no cookie)', async () => {
    const login = await startLogin(host, platform, launchUrl)
    const token = await platform.sign(launchClaims(platform, login.nonce))
    const reply = await postForm(host, '/api/v1/lti/launch', { id_token: token, state: login.state })
    expect(errorOf(reply.headers.location)).toBe('SamlInvalidAssertion')
  })

  it('replayed nonce', async () => {
    const first = await launch()
    expect(errorOf(first.reply.headers.location)).toBeNull()
    const replay = await postForm(
      host,
      '/api/v1/lti/launch',
      { id_token: first.token, state: first.login.state },
      first.login.cookie,
    )
    expect(errorOf(replay.headers.location)).toBe('SamlInvalidAssertion')
  })

  it('two launches racing with one nonce: exactly one signs in', async () => {
    const login = await startLogin(host, platform, launchUrl)
    const token = await platform.sign(launchClaims(platform, login.nonce))
    const post = () =>
      postForm(host, '/api/v1/lti/launch', { id_token: token, state: login.state }, login.cookie)
    const replies = await Promise.all([post(), post(), post()])
    const signedIn = replies.filter((r) => cookiesOf(r).includes('lms_session='))
    expect(signedIn).toHaveLength(1)
    expect(replies.filter((r) => errorOf(r.headers.location) === 'SamlInvalidAssertion')).toHaveLength(2)
  })
})

describe('deep linking', () => {
  const deepLinkUrl = () => `http://${host}/api/v1/lti/deep-link`

  async function deepLink(extra: Record<string, unknown> = {}) {
    const login = await startLogin(host, platform, deepLinkUrl())
    expect(new URL(String(login.reply.headers.location)).searchParams.get('redirect_uri')).toBe(deepLinkUrl())
    const claims = launchClaims(platform, login.nonce, {
      [LTI.messageType]: 'LtiDeepLinkingRequest',
      [LTI.roles]: ['http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor'],
      [LTI.deepLinkingSettings]: {
        deep_link_return_url: platform.returnUrl,
        accept_types: ['ltiResourceLink'],
        data: 'opaque-platform-data',
      },
      ...extra,
    })
    const token = await platform.sign(claims)
    return postForm(host, '/api/v1/lti/deep-link', { id_token: token, state: login.state }, login.cookie)
  }

  it('answers an auto-submitting form with a signed LtiDeepLinkingResponse the platform verifies against our JWKS; a link launches into its course', async () => {
    const published = await course(t)
    const draft = await course(t, { publish: false })
    const reply = await deepLink()
    expect(reply.status).toBe(200)
    expect(reply.text).toContain(`action="${platform.returnUrl}"`)
    const jwt = /name="JWT" value="([^"]+)"/.exec(reply.text)?.[1] ?? ''
    // The platform's return endpoint verifies it against the tool's JWKS.
    platform.toolJwks = { url: `http://${host}/api/v1/lti/.well-known/jwks.json`, host }
    const returned = await fetch(platform.returnUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ JWT: jwt }),
    })
    expect(returned.status).toBe(200)
    const [response] = platform.returns
    const jwks = await call('GET', '/api/v1/lti/.well-known/jwks.json', { host })
    expect(response?.kid).toBe(jwks.body.keys[0].kid)
    const payload = response?.payload ?? {}
    expect(payload[LTI.messageType]).toBe('LtiDeepLinkingResponse')
    expect(payload[LTI.version]).toBe('1.3.0')
    expect(payload[LTI.deploymentId]).toBe('deployment-1')
    expect(payload[LTI.data]).toBe('opaque-platform-data')
    const items = payload[LTI.contentItems] as {
      type: string
      title: string
      url: string
      custom: { course_id: string }
    }[]
    expect(items).toEqual([
      expect.objectContaining({
        type: 'ltiResourceLink',
        title: published.title,
        url: launchUrl,
        custom: { course_id: published.id },
      }),
    ])
    expect(items.some((i) => i.custom.course_id === draft.id)).toBe(false)

    // The platform launches the link it stored: the learner lands in that course.
    const later = await launch({ [LTI.custom]: items[0]?.custom })
    expect(String(later.reply.headers.location)).toBe(`http://${host}/learn/${published.id}`)
  })

  it('is refused when the registration has deep linking off', async () => {
    const { deactivate } = await import('../../shared/services/lti/lti-registrations-service.ts')
    await deactivate(t.tenant, registrationId)
    const again = await register(t.tenant, {
      issuer: platform.issuer,
      clientId: `${platform.clientId}-2`,
      jwksUrl: platform.jwksUrl,
      authUrl: platform.authUrl,
      deepLinking: false,
    })
    await addDeployment(t.tenant, again.id, 'deployment-1', null)
    const login = await postForm(host, '/api/v1/lti/login', {
      iss: platform.issuer,
      login_hint: 'x',
      target_link_uri: deepLinkUrl(),
      client_id: `${platform.clientId}-2`,
    })
    const q = new URL(String(login.headers.location)).searchParams
    const token = await platform.sign(
      launchClaims(platform, q.get('nonce') ?? '', {
        aud: `${platform.clientId}-2`,
        [LTI.messageType]: 'LtiDeepLinkingRequest',
        [LTI.deepLinkingSettings]: { deep_link_return_url: platform.returnUrl },
      }),
    )
    const reply = await postForm(
      host,
      '/api/v1/lti/deep-link',
      { id_token: token, state: q.get('state') ?? '' },
      cookiesOf(login),
    )
    expect(reply.status).toBe(302)
    expect(errorOf(reply.headers.location)).toBe('SamlNotConfigured')
    expect(reply.text).not.toContain('JWT')
  })
})

describe('JWKS', () => {
  it('publishes the tool key with its kid, cacheable for an hour; a staged key is published before it signs', async () => {
    const first = await call('GET', '/api/v1/lti/.well-known/jwks.json', { host })
    expect(first.status).toBe(200)
    expect(first.headers['cache-control']).toContain('max-age=3600')
    expect(first.body.keys).toHaveLength(1)
    const [key] = first.body.keys
    expect(key).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig' })
    expect(key.d).toBeUndefined()
    const { stageToolKey, promoteToolKey, signAsTool } =
      await import('../../shared/services/lti/lti-keys-service.ts')
    const staged = await stageToolKey(t.tenant)
    const published = await call('GET', '/api/v1/lti/.well-known/jwks.json', { host })
    expect(published.body.keys.map((k: { kid: string }) => k.kid)).toEqual([key.kid, staged.nextKid])
    const before = await signAsTool(t.tenant, {}, { audience: 'a', issuer: 'i', expiresInSeconds: 60 })
    expect(decodeProtectedHeader(before).kid).toBe(key.kid)
    await promoteToolKey(t.tenant)
    const after = await signAsTool(t.tenant, {}, { audience: 'a', issuer: 'i', expiresInSeconds: 60 })
    expect(decodeProtectedHeader(after).kid).toBe(staged.nextKid)
    const rotated = await call('GET', '/api/v1/lti/.well-known/jwks.json', { host })
    expect(rotated.body.keys.map((k: { kid: string }) => k.kid)).toEqual([staged.nextKid, key.kid])
  })

  it('keeps the private key sealed at rest', async () => {
    await call('GET', '/api/v1/lti/.well-known/jwks.json', { host })
    const { getKeyRing, getToolKeys } = await import('../../shared/store/lti/lti-keys-store.ts')
    const ring = await getKeyRing(t.tenant)
    const [stored] = await getToolKeys(t.tenant, [ring?.currentKid ?? ''])
    expect(stored?.sealedPrivateJwk).toMatch(/^v3\.k[0-9]+\./)
    expect(stored?.sealedPrivateJwk).not.toContain('"d"')
  })
})
