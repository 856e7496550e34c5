/**
 * LTI Dynamic Registration (api-additions sections 4 and 6; decision 0051): a one-time link from
 * `POST /api/v1/lti/registration-links`, opened by a platform written in the tests with its
 * configuration URL and registration token. The registration and its deployment are stored only
 * once the platform accepted; a used or expired link is refused; a refusal leaves the link usable.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { doc, tableName } from '../../local/sdk-clients.ts'
import { keys } from '../../shared/store/core/keys.ts'
import { call } from '../helpers/http.ts'
import { serveDynamicRegistration, type RegistrationEndpoint } from '../helpers/lti-dynamic-registration.ts'
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
let host: string
let platform: Platform
let endpoint: RegistrationEndpoint

beforeEach(async () => {
  t = await newTenant('growth')
  host = `${t.slug}.localhost`
  platform = await startPlatform({ issuerAtBase: true })
  endpoint = serveDynamicRegistration(platform)
})
afterEach(() => platform.close())

async function newLink(): Promise<{ url: string; token: string; expiresAt: string }> {
  const reply = await t.api.post('/api/v1/lti/registration-links', {})
  expect(reply.status).toBe(201)
  const url = reply.body.data.url as string
  return { url, token: url.split('/').pop() ?? '', expiresAt: reply.body.data.expires_at as string }
}

/** Opens the link as the platform does: its configuration URL and registration token appended. */
function open(
  url: string,
  params: Record<string, string> = {
    openid_configuration: endpoint.configurationUrl,
    registration_token: endpoint.registrationToken,
  },
) {
  return call('GET', `${new URL(url).pathname}?${new URLSearchParams(params)}`, { host })
}

const refusal = (reply: { text: string }) => /data-code="([a-z_]+)"/.exec(reply.text)?.[1]
const registrations = async () => (await t.api.get('/api/v1/lti/registrations')).body.data as unknown[]

async function launch() {
  const login = await startLogin(host, platform, `http://${host}/api/v1/lti/launch`)
  const token = await platform.sign(launchClaims(platform, login.nonce))
  return postForm(host, '/api/v1/lti/launch', { id_token: token, state: login.state }, login.cookie)
}

describe('LTI Dynamic Registration', () => {
  it('registers the platform once through a link, with its deployment, and its launches go through', async () => {
    const before = Date.now()
    const link = await newLink()
    expect(link.url).toMatch(new RegExp(`^http://${host}/api/v1/lti/dynamic-registration/[0-9a-f-]{36}$`))
    const expires = Date.parse(link.expiresAt)
    expect(expires).toBeGreaterThanOrEqual(before + 3600_000 - 2000)
    expect(expires).toBeLessThanOrEqual(Date.now() + 3600_000 + 1000)

    // Two openings at once: one registers, the other finds the link taken.
    const [a, b] = await Promise.all([open(link.url), open(link.url)])
    const done = [a, b].find((r) => r.status === 200)
    expect([a.status, b.status].sort()).toEqual([200, 410])
    expect(done?.text).toContain(`postMessage({ subject: 'org.imsglobal.lti.close' }, '*')`)
    expect(String(done?.headers['content-security-policy'])).toMatch(/script-src 'nonce-[^']+'/)
    expect(endpoint.received).toHaveLength(1)
    const api = `http://${host}/api/v1`
    expect(endpoint.received[0]).toEqual({
      application_type: 'web',
      response_types: ['id_token'],
      grant_types: ['implicit', 'client_credentials'],
      initiate_login_uri: `${api}/lti/login`,
      redirect_uris: [`${api}/lti/launch`, `${api}/lti/deep-link`],
      client_name: expect.any(String),
      jwks_uri: `${api}/lti/.well-known/jwks.json`,
      token_endpoint_auth_method: 'private_key_jwt',
      scope:
        'https://purl.imsglobal.org/spec/lti-ags/scope/score https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly',
      'https://purl.imsglobal.org/spec/lti-tool-configuration': {
        domain: host,
        target_link_uri: `${api}/lti/launch`,
        // What the launch reads, of what the platform says it sends.
        claims: ['iss', 'sub', 'given_name', 'family_name', 'email'],
        messages: [
          { type: 'LtiResourceLinkRequest', target_link_uri: `${api}/lti/launch` },
          { type: 'LtiDeepLinkingRequest', target_link_uri: `${api}/lti/deep-link` },
        ],
      },
    })

    const listed = await registrations()
    expect(listed).toEqual([
      {
        id: expect.any(String),
        issuer: platform.base,
        client_id: platform.clientId,
        jwks_url: platform.jwksUrl,
        auth_url: platform.authUrl,
        token_url: `${platform.base}/token`,
        deep_linking: true,
        is_active: true,
        created_at: expect.any(String),
        deployments: [
          { registration_id: expect.any(String), deployment_id: 'deployment-1', course_id: null },
        ],
      },
    ])
    expect(cookiesOf(await launch())).toContain('lms_session=')

    const again = await open(link.url)
    expect(again.status).toBe(410)
    expect(refusal(again)).toBe('link_unusable')
    expect(endpoint.received).toHaveLength(1)
  })

  it('refuses an expired link without asking the platform', async () => {
    const link = await newLink()
    // The hour passed: the stored expiry moved back rather than waiting for it.
    await doc.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.ltiRegistrationLink(t.tenant, link.token),
        UpdateExpression: 'SET expires_epoch = :past',
        ExpressionAttributeValues: { ':past': Math.floor(Date.now() / 1000) - 1 },
      }),
    )
    const reply = await open(link.url)
    expect(reply.status).toBe(410)
    expect(refusal(reply)).toBe('link_unusable')
    expect(endpoint.received).toHaveLength(0)
    expect(await registrations()).toEqual([])
    // A token no link was made for is refused the same way.
    expect((await open(link.url.replace(link.token, crypto.randomUUID()))).status).toBe(410)
    expect((await open(link.url.replace(link.token, 'not-a-token'))).status).toBe(410)
  })

  it('stores nothing when the platform refuses, and the link works afterwards', async () => {
    const link = await newLink()
    endpoint.answer = { accept: false, status: 400 }
    const refused = await open(link.url)
    expect(refused.status).toBe(422)
    expect(refusal(refused)).toBe('platform_refused')
    expect(endpoint.received).toHaveLength(1)

    endpoint.answer = { accept: true, deploymentId: 'deployment-1' }
    const wrongToken = await open(link.url, {
      openid_configuration: endpoint.configurationUrl,
      registration_token: 'not-the-platforms',
    })
    expect(wrongToken.status).toBe(422)
    expect(endpoint.unauthorized).toBe(1)
    expect(await registrations()).toEqual([])

    expect((await open(link.url)).status).toBe(200)
    expect(await registrations()).toHaveLength(1)
  })

  it('refuses a configuration on a private address, of another issuer, or with unsafe URLs, before registering', async () => {
    const link = await newLink()
    const opened = async (openidConfiguration: string) => {
      const reply = await open(link.url, {
        openid_configuration: openidConfiguration,
        registration_token: endpoint.registrationToken,
      })
      return { status: reply.status, code: refusal(reply) }
    }
    const refused = { status: 422, code: 'configuration_refused' }
    expect(await opened('https://10.0.0.5/.well-known/openid-configuration')).toEqual(refused)
    expect(await opened('http://169.254.169.254/latest/meta-data')).toEqual(refused)

    const served = endpoint.configuration
    endpoint.configuration = { ...served, issuer: 'https://platform.example.com' }
    expect(await opened(endpoint.configurationUrl)).toEqual(refused)
    endpoint.configuration = { ...served, jwks_uri: 'https://10.0.0.5/jwks' }
    expect(await opened(endpoint.configurationUrl)).toEqual(refused)
    endpoint.configuration = { ...served, registration_endpoint: 'https://192.168.1.1/register' }
    expect(await opened(endpoint.configurationUrl)).toEqual(refused)
    expect(endpoint.received).toHaveLength(0)

    const missing = await open(link.url, {})
    expect(missing.status).toBe(400)
    expect(refusal(missing)).toBe('missing_openid_configuration')
    expect(await registrations()).toEqual([])

    endpoint.configuration = served
    expect((await open(link.url)).status).toBe(200)
  })

  it('stores the registration without a deployment when the platform names none', async () => {
    endpoint.answer = { accept: true, deploymentId: null }
    const done = await open((await newLink()).url)
    expect(done.status).toBe(200)
    expect(done.text).toContain('made no deployment yet')
    expect(await registrations()).toEqual([
      expect.objectContaining({ issuer: platform.base, deployments: [] }),
    ])
  })

  it('makes links for admin keys only, and takes no options', async () => {
    const write = t.api.withKey(await t.key(['read', 'write']))
    const forbidden = await write.post('/api/v1/lti/registration-links', {})
    expect(forbidden.status).toBe(403)
    const unknown = await t.api.post('/api/v1/lti/registration-links', { course_id: 'x' })
    expect(unknown.status).toBe(400)
    expect(unknown.body.error.message).toContain('course_id')
    expect((await t.api.post('/api/v1/lti/registration-links')).status).toBe(201)
  })
})
