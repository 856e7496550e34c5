/**
 * LTI platform registrations over the API (api-additions section 4; issue 31): the same
 * registrations `lms lti ...` makes, admin scope, URLs through the SSRF guard, and a registration
 * made here is one a platform launches through.
 */
import { randomUUID } from 'node:crypto'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
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

type Reply = { status: number; body: { error?: { message?: string } } }
function expectError(reply: Reply, status: number, field?: string) {
  expect(reply.status).toBe(status)
  expect(reply.body).toMatchObject({ data: null, meta: null, error: { code: status } })
  if (field) expect(reply.body.error?.message).toContain(field)
}

const body = () => ({
  issuer: platform.issuer,
  client_id: platform.clientId,
  jwks_url: platform.jwksUrl,
  auth_url: platform.authUrl,
})

/** Logs in as the platform, then posts the launch (after `between`, e.g. a deactivation). */
async function launch(between: () => Promise<unknown> = async () => undefined) {
  const host = `${t.slug}.localhost`
  const login = await startLogin(host, platform, `http://${host}/api/v1/lti/launch`)
  await between()
  const token = await platform.sign(launchClaims(platform, login.nonce))
  return postForm(host, '/api/v1/lti/launch', { id_token: token, state: login.state }, login.cookie)
}

describe('Routes: /api/v1/lti/registrations', () => {
  it('registers a platform and a deployment that a launch then goes through', async () => {
    const c = await course(t)
    const created = await t.api.post('/api/v1/lti/registrations', { ...body(), deep_linking: true })
    expect(created.status).toBe(201)
    expect(created.body.data).toEqual({
      id: expect.any(String),
      ...body(),
      token_url: null,
      deep_linking: true,
      is_active: true,
      created_at: expect.any(String),
      deployments: [],
    })
    const id = created.body.data.id as string
    const dep = await t.api.post(`/api/v1/lti/registrations/${id}/deployments`, {
      deployment_id: 'deployment-1',
      course_id: c.id,
    })
    expect(dep.status).toBe(201)
    expect(dep.body.data).toEqual({ registration_id: id, deployment_id: 'deployment-1', course_id: c.id })

    const launched = await launch()
    expect(cookiesOf(launched)).toContain('lms_session=')
    expect(String(launched.headers.location)).toContain(`/learn/${c.id}`)

    const got = await t.api.get(`/api/v1/lti/registrations/${id}`)
    expect(got.body.data.deployments).toEqual([dep.body.data])
    const listed = await t.api.get('/api/v1/lti/registrations')
    expect(listed.body.meta).toEqual({ page: 1, per_page: 50, total: 1 })
    expect(listed.body.data).toEqual([got.body.data])
  })

  it('lists a registration made with lms lti register, and lms lti list shows one made here', async () => {
    const cli = await lms(
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
    expect(cli.code).toBe(0)
    const api = await t.api.post('/api/v1/lti/registrations', { ...body(), client_id: 'second-client' })
    expect(api.status).toBe(201)

    const listed = await t.api.get('/api/v1/lti/registrations?per_page=1&page=2')
    expect(listed.body.meta).toEqual({ page: 2, per_page: 1, total: 2 })
    const all = await t.api.get('/api/v1/lti/registrations')
    expect(all.body.data.map((r: { id: string }) => r.id).sort()).toEqual(
      [cli.json.id, api.body.data.id].sort(),
    )
    const cliList = await lms('lti', 'list', '--tenant', t.slug)
    expect(cliList.json.data.map((r: { id: string }) => r.id).sort()).toEqual(
      [cli.json.id, api.body.data.id].sort(),
    )
  })

  it('refuses unsafe URLs, missing and unknown fields, and a second registration of the pair, changing nothing', async () => {
    expectError(
      await t.api.post('/api/v1/lti/registrations', { ...body(), jwks_url: 'https://10.0.0.5/jwks' }),
      400,
      'jwks_url',
    )
    expectError(
      await t.api.post('/api/v1/lti/registrations', { ...body(), auth_url: 'https://169.254.169.254/x' }),
      400,
      'auth_url',
    )
    expectError(
      await t.api.post('/api/v1/lti/registrations', { ...body(), token_url: 'ftp://example.com/x' }),
      400,
      'token_url',
    )
    expectError(
      await t.api.post('/api/v1/lti/registrations', { ...body(), issuer: undefined }),
      400,
      'issuer',
    )
    expectError(await t.api.post('/api/v1/lti/registrations', { ...body(), secret: 'x' }), 400, 'secret')
    expect((await t.api.get('/api/v1/lti/registrations')).body.meta.total).toBe(0)

    const first = await t.api.post('/api/v1/lti/registrations', body())
    expect(first.status).toBe(201)
    expectError(await t.api.post('/api/v1/lti/registrations', body()), 409)
    const id = first.body.data.id as string
    expectError(
      await t.api.patch(`/api/v1/lti/registrations/${id}`, { jwks_url: 'https://10.0.0.5/k' }),
      400,
      'jwks_url',
    )
    expectError(
      await t.api.patch(`/api/v1/lti/registrations/${id}`, { issuer: 'https://other.example.com' }),
      400,
      'issuer',
    )
    expectError(
      await t.api.post(`/api/v1/lti/registrations/${id}/deployments`, {
        deployment_id: 'd',
        course_id: randomUUID(),
      }),
      400,
      'course_id',
    )
    expect((await t.api.get(`/api/v1/lti/registrations/${id}`)).body.data).toEqual(first.body.data)
  })

  it('changes a registration: deactivation refuses launches, reactivation lets them in', async () => {
    const id = (await t.api.post('/api/v1/lti/registrations', body())).body.data.id as string
    await t.api.post(`/api/v1/lti/registrations/${id}/deployments`, { deployment_id: 'deployment-1' })

    const off = await launch(() => t.api.patch(`/api/v1/lti/registrations/${id}`, { is_active: false }))
    expect(String(off.headers.location)).toContain('error=SamlNotConfigured')
    const patched = await t.api.patch(`/api/v1/lti/registrations/${id}`, {
      is_active: true,
      deep_linking: true,
      token_url: `${platform.base}/token`,
    })
    expect(patched.status).toBe(200)
    expect(patched.body.data).toMatchObject({
      is_active: true,
      deep_linking: true,
      token_url: `${platform.base}/token`,
    })
    expect(cookiesOf(await launch())).toContain('lms_session=')
  })

  it('deletes a deployment (its launches refused) and a registration (every launch refused, the pair free again)', async () => {
    const id = (await t.api.post('/api/v1/lti/registrations', body())).body.data.id as string
    await t.api.post(`/api/v1/lti/registrations/${id}/deployments`, { deployment_id: 'deployment-1' })
    const path = `/api/v1/lti/registrations/${id}/deployments/deployment-1`

    const noDeployment = await launch(async () => expect((await t.api.delete(path)).status).toBe(204))
    expect(String(noDeployment.headers.location)).toContain('error=')
    expectError(await t.api.delete(path), 404)
    expect((await t.api.get(`/api/v1/lti/registrations/${id}`)).body.data.deployments).toEqual([])

    await t.api.post(`/api/v1/lti/registrations/${id}/deployments`, { deployment_id: 'deployment-1' })
    const gone = await launch(async () =>
      expect((await t.api.delete(`/api/v1/lti/registrations/${id}`)).status).toBe(204),
    )
    expect(String(gone.headers.location)).toContain('error=SamlNotConfigured')
    expectError(await t.api.get(`/api/v1/lti/registrations/${id}`), 404)
    expectError(await t.api.delete(`/api/v1/lti/registrations/${id}`), 404)
    expect((await t.api.post('/api/v1/lti/registrations', body())).status).toBe(201)
  })

  it('needs the admin scope, and answers 404 for another tenant’s registration', async () => {
    const id = (await t.api.post('/api/v1/lti/registrations', body())).body.data.id as string
    const write = t.api.withKey(await t.key(['read', 'write']))
    expectError(await write.get('/api/v1/lti/registrations'), 403)
    expectError(await write.post('/api/v1/lti/registrations', { ...body(), client_id: 'x' }), 403)
    expectError(await write.patch(`/api/v1/lti/registrations/${id}`, { is_active: false }), 403)
    expectError(await write.delete(`/api/v1/lti/registrations/${id}`), 403)
    expectError(await write.post(`/api/v1/lti/registrations/${id}/deployments`, { deployment_id: 'd' }), 403)

    const other = await newTenant('growth')
    expectError(await other.api.get(`/api/v1/lti/registrations/${id}`), 404)
    expectError(await other.api.patch(`/api/v1/lti/registrations/${id}`, { is_active: false }), 404)
    expectError(await other.api.delete(`/api/v1/lti/registrations/${id}`), 404)
    expectError(
      await other.api.post(`/api/v1/lti/registrations/${id}/deployments`, { deployment_id: 'd' }),
      404,
    )
    expect((await t.api.get(`/api/v1/lti/registrations/${id}`)).body.data).toMatchObject({
      is_active: true,
      deployments: [],
    })
  })
})
