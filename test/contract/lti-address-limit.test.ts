/**
 * The LTI routes a stranger can call without a platform's signature are limited per client address
 * (decision 0020): a login writes a state item, a launch may fetch a platform's key set. Each test
 * speaks from its own loopback address (127.x.y.z), so its window meets no other test's.
 */
import { describe, expect, it } from 'vitest'
import { register } from '../../shared/services/lti/lti-registrations-service.ts'
import { queryAll } from '../../shared/store/core/db.ts'
import { keys } from '../../shared/store/core/keys.ts'
import { ltiPerIp } from '../../shared/routes.ts'
import { call, ownAddress, type Reply } from '../helpers/http.ts'
import { startPlatform } from '../helpers/lti-platform.ts'
import { newTenant, type TestTenant } from '../helpers/tenants.ts'

/** Runs `burst` from a fresh address inside one fixed window; a run cut by the window's end runs again. */
async function inOneWindow<T>(burst: (from: string) => Promise<T>): Promise<T> {
  const windowOf = () => Math.floor(Date.now() / 1000 / ltiPerIp.windowSeconds)
  for (;;) {
    const before = windowOf()
    const result = await burst(ownAddress())
    if (windowOf() === before) return result
  }
}

/** `count` calls of `send`, ten at a time (a school's browsers arrive together, not in a queue). */
async function tenAtATime(count: number, send: () => Promise<Reply>): Promise<Reply[]> {
  const replies: Reply[] = []
  while (replies.length < count) {
    const n = Math.min(10, count - replies.length)
    replies.push(...(await Promise.all(Array.from({ length: n }, send))))
  }
  return replies
}

async function loginStates(t: TestTenant): Promise<number> {
  const items = await queryAll({
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :sk)',
    ExpressionAttributeValues: { ':pk': keys.tenantPartition(t.tenant), ':sk': 'LTISTATE#' },
    ConsistentRead: true,
  })
  return items.length
}

function expectRefused(reply: Reply | undefined): void {
  expect(reply?.status).toBe(429)
  expect(reply?.body).toEqual({
    data: null,
    meta: null,
    error: { code: 429, message: 'Rate limit exceeded' },
  })
  expect(reply?.headers['x-ratelimit-limit']).toBe(String(ltiPerIp.limit))
  expect(reply?.headers['x-ratelimit-remaining']).toBe('0')
  expect(reply?.headers.location).toBeUndefined()
  expect(reply?.headers['set-cookie']).toBeUndefined()
  const retryAfter = Number(reply?.headers['retry-after'])
  expect(retryAfter).toBeGreaterThan(0)
  expect(retryAfter).toBeLessThanOrEqual(ltiPerIp.windowSeconds)
}

describe('LTI: per-address limit', () => {
  it('admits the limit of logins from one address in a window, then 429 with Retry-After and no state written; other addresses are unaffected', async () => {
    // Prepare: a registered platform, so every admitted login writes its state and redirects
    const t = await newTenant('growth')
    const platform = await startPlatform()
    const host = `${t.slug}.localhost`
    await register(t.tenant, {
      issuer: platform.issuer,
      clientId: platform.clientId,
      jwksUrl: platform.jwksUrl,
      authUrl: platform.authUrl,
      deepLinking: false,
    })
    const query = new URLSearchParams({
      iss: platform.issuer,
      login_hint: 'user',
      target_link_uri: `http://${host}/api/v1/lti/launch`,
      client_id: platform.clientId,
    })
    const login = (localAddress: string) => call('GET', `/api/v1/lti/login?${query}`, { host, localAddress })

    try {
      // Act
      const { admitted, refused, elsewhere, written } = await inOneWindow(async (from) => {
        const before = await loginStates(t)
        const admitted = await tenAtATime(ltiPerIp.limit, () => login(from))
        const refused = await login(from)
        const elsewhere = await login(ownAddress())
        return { admitted, refused, elsewhere, written: (await loginStates(t)) - before }
      })

      // Assess
      expect(admitted.filter((r) => r.status !== 302)).toEqual([])
      expect(admitted.every((r) => String(r.headers.location).startsWith(platform.authUrl))).toBe(true)
      expectRefused(refused)
      expect(elsewhere.status).toBe(302)
      // One state item per admitted login (the other address's included), none for the refused one
      expect(written).toBe(ltiPerIp.limit + 1)
    } finally {
      await platform.close()
    }
  })

  it('admits the limit of launches from one address in a window, then 429 before the token is looked at', async () => {
    // Prepare
    const t = await newTenant('growth')
    const host = `${t.slug}.localhost`
    const launch = (localAddress: string) =>
      call('POST', '/api/v1/lti/launch', {
        host,
        localAddress,
        rawBody: new URLSearchParams({ id_token: 'not-a-token', state: 'none' }).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      })

    // Act
    const { admitted, refused, elsewhere } = await inOneWindow(async (from) => {
      const admitted = await tenAtATime(ltiPerIp.limit, () => launch(from))
      const refused = await launch(from)
      const elsewhere = await launch(ownAddress())
      return { admitted, refused, elsewhere }
    })

    // Assess: a bad token is the learner's redirect to the login page, until the window is full
    const toLoginPage = (r: Reply) => r.status === 302 && String(r.headers.location).includes('/login?error=')
    expect(admitted.filter((r) => !toLoginPage(r))).toEqual([])
    expectRefused(refused)
    expect(toLoginPage(elsewhere)).toBe(true)
  })
})
