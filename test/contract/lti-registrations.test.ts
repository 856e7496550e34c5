/**
 * LTI registrations through the operator CLI (`lms lti ...`, local-contract second wave), the SSRF
 * guard on the customer's URLs, and the platform keys fetched through the guarded client.
 */
import { afterEach, beforeEach, expect, it } from 'vitest'
import { generateKeyPair, SignJWT } from 'jose'
import { lms } from '../helpers/cli.ts'
import { course } from '../helpers/learning.ts'
import {
  cookiesOf,
  launchClaims,
  postForm,
  startLogin,
  startPlatform,
  type Platform,
} from '../helpers/lti-platform.ts'
import { newTenant, type TestTenant } from '../helpers/tenants.ts'

let t: TestTenant
let platform: Platform

beforeEach(async () => {
  t = await newTenant('growth')
  platform = await startPlatform()
})
afterEach(() => platform.close())

it('registers a platform, adds deployments, lists and deactivates with lms lti', async () => {
  const c = await course(t)
  const reg = await lms(
    'lti',
    'register',
    '--tenant',
    t.slug,
    '--issuer',
    platform.issuer,
    '--client-id',
    platform.clientId,
    '--jwks-url',
    platform.jwksUrl,
    '--auth-url',
    platform.authUrl,
    '--deep-linking',
    'on',
  )
  expect(reg.code).toBe(0)
  expect(reg.json).toMatchObject({
    issuer: platform.issuer,
    client_id: platform.clientId,
    jwks_url: platform.jwksUrl,
    auth_url: platform.authUrl,
    deep_linking: true,
    is_active: true,
  })
  const id = reg.json.id as string

  const dep = await lms(
    'lti',
    'deployment',
    'add',
    '--tenant',
    t.slug,
    '--registration',
    id,
    '--deployment-id',
    'd-1',
    '--course',
    c.id,
  )
  expect(dep.json).toEqual({ registration_id: id, deployment_id: 'd-1', course_id: c.id })
  const plain = await lms(
    'lti',
    'deployment',
    'add',
    '--tenant',
    t.slug,
    '--registration',
    id,
    '--deployment-id',
    'd-2',
  )
  expect(plain.json).toEqual({ registration_id: id, deployment_id: 'd-2', course_id: null })

  const twice = await lms(
    'lti',
    'register',
    '--tenant',
    t.slug,
    '--issuer',
    platform.issuer,
    '--client-id',
    platform.clientId,
    '--jwks-url',
    platform.jwksUrl,
    '--auth-url',
    platform.authUrl,
  )
  expect(twice.code).not.toBe(0)
  expect(twice.json.error).toBeDefined()

  const list = await lms('lti', 'list', '--tenant', t.slug)
  expect(list.json.data.map((r: { id: string }) => r.id)).toEqual([id])

  const off = await lms('lti', 'deactivate', '--tenant', t.slug, '--registration', id)
  expect(off.json).toMatchObject({ id, is_active: false })
})

it('refuses customer URLs that point inside the network (SSRF guard)', async () => {
  for (const url of [
    'https://10.0.0.5/jwks',
    'https://169.254.169.254/latest',
    'https://metadata.internal/x',
    'ftp://example.com/x',
  ]) {
    const reg = await lms(
      'lti',
      'register',
      '--tenant',
      t.slug,
      '--issuer',
      `https://iss-${url.length}.example.com`,
      '--client-id',
      'c',
      '--jwks-url',
      url,
      '--auth-url',
      'https://lms.example.com/auth',
    )
    expect(reg.code, url).not.toBe(0)
    expect(JSON.stringify(reg.json.error), url).toMatch(/jwks_url/)
  }
  expect((await lms('lti', 'list', '--tenant', t.slug)).json.data).toEqual([])
})

it('fetches the platform keys once, and again only for a kid it does not know (the platform rotated)', async () => {
  const reg = await lms(
    'lti',
    'register',
    '--tenant',
    t.slug,
    '--issuer',
    platform.issuer,
    '--client-id',
    platform.clientId,
    '--jwks-url',
    platform.jwksUrl,
    '--auth-url',
    platform.authUrl,
  )
  await lms(
    'lti',
    'deployment',
    'add',
    '--tenant',
    t.slug,
    '--registration',
    reg.json.id,
    '--deployment-id',
    'deployment-1',
  )
  const host = `${t.slug}.localhost`
  const launchUrl = `http://${host}/api/v1/lti/launch`
  const launchOnce = async (sign = platform.sign) => {
    const login = await startLogin(host, platform, launchUrl)
    const token = await sign(launchClaims(platform, login.nonce))
    return postForm(host, '/api/v1/lti/launch', { id_token: token, state: login.state }, login.cookie)
  }
  const first = await launchOnce()
  expect(cookiesOf(first)).toContain('lms_session=')
  const fetchesAfterFirst = platform.jwksFetches
  expect(fetchesAfterFirst).toBeGreaterThanOrEqual(1)
  expect(cookiesOf(await launchOnce())).toContain('lms_session=')
  expect(platform.jwksFetches).toBe(fetchesAfterFirst)

  // A kid the platform never published: one refetch, then refused.
  const { privateKey } = await generateKeyPair('RS256')
  const stranger = await launchOnce((c) =>
    new SignJWT(c).setProtectedHeader({ alg: 'RS256', kid: 'unknown-kid' }).sign(privateKey),
  )
  expect(String(stranger.headers.location)).toContain('error=SamlInvalidAssertion')
  expect(platform.jwksFetches).toBe(fetchesAfterFirst + 1)
})
