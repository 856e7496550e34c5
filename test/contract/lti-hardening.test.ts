/**
 * Issue 26, points 5 to 8 (decision 0027): what a real learner's claims, a careless platform and a
 * hostile header did to LTI. Identity claims are normalised the way the users API accepts them,
 * every launch failure ends on the login page with a code and no detail, redirects carry only the
 * configured scheme and the tenant's host, and login hints are bounded.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
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
import { newTenant, userBody, type TestTenant } from '../helpers/tenants.ts'

let t: TestTenant
let platform: Platform
let host: string
let launchUrl: string

beforeEach(async () => {
  t = await newTenant('growth')
  platform = await startPlatform()
  host = `${t.slug}.localhost`
  launchUrl = `http://${host}/api/v1/lti/launch`
  await registerPlatform(t.tenant, platform)
})

afterEach(() => platform.close())

async function launch(extra: Record<string, unknown> = {}, path = '/api/v1/lti/launch') {
  const login = await startLogin(host, platform, `http://${host}${path}`)
  expect(login.reply.status).toBe(302)
  const token = await platform.sign(launchClaims(platform, login.nonce, extra))
  return postForm(host, path, { id_token: token, state: login.state }, login.cookie)
}

async function allUsers(): Promise<{ email: string; first_name: string; last_name: string }[]> {
  const r = await t.api.get('/api/v1/users?per_page=200')
  expect(r.status).toBe(200)
  return r.body.data
}

const toLogin = (code: string) => `http://${host}/login?error=${code}`

describe('POST /api/v1/lti/launch: a real learner', () => {
  it('signs in a learner whose address has an apostrophe, under that address, as the users API takes it', async () => {
    const reply = await launch({ email: "O'Brien.Pat@Example.com" })
    expect(reply.status).toBe(302)
    expect(String(reply.headers.location)).toBe(`http://${host}/catalog`)
    expect((await allUsers()).map((u) => u.email)).toEqual(["o'brien.pat@example.com"])
  })

  it('signs in a learner whose address has a non-ASCII local part, under the synthetic address', async () => {
    const reply = await launch({ email: 'josé@example.com' })
    expect(String(reply.headers.location)).toBe(`http://${host}/catalog`)
    const [only] = await allUsers()
    expect(only?.email).toMatch(/^lti-[0-9a-f]+@lti\.invalid$/)
  })

  it('cuts a long given_name at a whole character (never half an emoji) and signs the learner in', async () => {
    const reply = await launch({ given_name: `${'a'.repeat(99)}😀😀`, family_name: '😀'.repeat(120) })
    expect(String(reply.headers.location)).toBe(`http://${host}/catalog`)
    const [only] = await allUsers()
    expect(only?.first_name).toBe('a'.repeat(99))
    expect(only?.last_name).toBe('😀'.repeat(50))
  })

  it('takes a claim the users API would refuse (an address too long, a name of control characters) as absent', async () => {
    const reply = await launch({ email: `${'a'.repeat(250)}@example.com`, given_name: '\u0000\u0001' })
    expect(reply.status).toBe(302)
    expect(String(reply.headers.location)).toBe(`http://${host}/catalog`)
    const [only] = await allUsers()
    expect(only).toMatchObject({ first_name: 'LTI', last_name: 'Hopper' })
    expect(only?.email).toMatch(/@lti\.invalid$/)
  })
})

describe('POST /api/v1/users: addresses with an apostrophe', () => {
  it('accepts a valid address with an apostrophe and still refuses invalid ones naming email', async () => {
    const ok = await t.api.post('/api/v1/users', userBody({ email: "d'arcy@example.com" }))
    expect(ok.status).toBe(201)
    expect(ok.body.data.email).toBe("d'arcy@example.com")
    for (const email of ['a b@example.com', 'no-at.example.com', 'a..b@example.com', '.a@example.com']) {
      const bad = await t.api.post('/api/v1/users', userBody({ email }))
      expect(bad.status, email).toBe(400)
      expect(bad.body.error.message).toContain('email')
    }
  })
})

describe('POST /api/v1/lti/launch: an e-mail claim never takes over a privileged user', () => {
  it('refuses manager, group_admin and ecommerce_admin as it does owner and admin', async () => {
    for (const role of ['manager', 'group_admin', 'ecommerce_admin']) {
      const existing = await user(t, { email: `${role.replace('_', '-')}@example.com`, role })
      const reply = await launch({ email: existing.email })
      expect(String(reply.headers.location), role).toBe(toLogin('SamlInvalidAssertion'))
      expect(cookiesOf(reply)).not.toContain('lms_session=')
      const still = await t.api.get(`/api/v1/users/${existing.id}`)
      expect(still.body.data.role).toBe(role)
    }
  })
})

describe('POST /api/v1/lti/deep-link and GET /learn/{id}: malformed input', () => {
  it('ends a deep link with a malformed deep_link_return_url on the login page', async () => {
    const reply = await launch(
      {
        [LTI.messageType]: 'LtiDeepLinkingRequest',
        [LTI.deepLinkingSettings]: { deep_link_return_url: 'http://[' },
      },
      '/api/v1/lti/deep-link',
    )
    expect(reply.status).toBe(302)
    expect(String(reply.headers.location)).toBe(toLogin('SamlInvalidAssertion'))
  })

  it('answers 404 for a course path that cannot be a course id, however long (a post without its CSRF token 403 first)', async () => {
    const signedIn = await launch()
    const cookie = cookiesOf(signedIn)
    const c = await course(t)
    const page = await call('GET', `/learn/${c.id}`, { host, headers: { cookie } })
    const csrf = /name="csrf_token" value="([^"]+)"/.exec(page.text)?.[1] ?? ''
    expect(csrf).not.toBe('')
    for (const id of ['x'.repeat(3000), 'not-a-uuid']) {
      const page = await call('GET', `/learn/${id}`, { host, headers: { cookie } })
      expect(page.status).toBe(404)
      expect(page.headers['content-type']).toMatch(/text\/html/)
      const forged = await postForm(host, `/learn/${id}`, { csrf_token: 'x' }, cookie)
      expect(forged.status).toBe(403)
      const post = await postForm(host, `/learn/${id}`, { csrf_token: csrf }, cookie)
      expect(post.status).toBe(404)
      const module_ = await postForm(host, `/learn/${c.id}`, { csrf_token: csrf, module_id: id }, cookie)
      expect(module_.status).toBe(404)
    }
  })
})

describe('redirects and hints', () => {
  it('builds every redirect from the configured scheme and the tenant host, whatever X-Forwarded-Proto says', async () => {
    const headers = {
      'x-forwarded-proto': 'https://evil.example/#',
      'content-type': 'application/x-www-form-urlencoded',
    }
    const login = await call('POST', '/api/v1/lti/login', {
      host,
      headers,
      rawBody: new URLSearchParams({
        iss: platform.issuer,
        login_hint: 'x',
        target_link_uri: launchUrl,
        client_id: platform.clientId,
      }).toString(),
    })
    expect(login.status).toBe(302)
    const q = new URL(String(login.headers.location)).searchParams
    expect(q.get('redirect_uri')).toBe(launchUrl)
    const refused = await call('POST', '/api/v1/lti/launch', { host, headers, rawBody: 'id_token=x&state=y' })
    expect(refused.status).toBe(302)
    expect(String(refused.headers.location)).toBe(toLogin('SamlInvalidAssertion'))
  })

  it('sends a login with an oversized login_hint or lti_message_hint to the login page, never copying it', async () => {
    const hints: Record<string, string>[] = [
      { login_hint: 'h'.repeat(200_000) },
      { login_hint: 'x', lti_message_hint: 'm'.repeat(5000) },
    ]
    for (const hint of hints) {
      const reply = await postForm(host, '/api/v1/lti/login', {
        iss: platform.issuer,
        target_link_uri: launchUrl,
        client_id: platform.clientId,
        ...hint,
      })
      expect(reply.status).toBe(302)
      expect(String(reply.headers.location)).toBe(toLogin('SamlInvalidAssertion'))
    }
    const fits = await postForm(host, '/api/v1/lti/login', {
      iss: platform.issuer,
      login_hint: 'h'.repeat(4096),
      target_link_uri: launchUrl,
      client_id: platform.clientId,
    })
    expect(new URL(String(fits.headers.location)).searchParams.get('login_hint')).toBe('h'.repeat(4096))
  })
})
