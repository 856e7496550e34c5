/**
 * Rotating the local stack's secrets as an operator does, with `lms`: webhook secrets sealed
 * before and after `lms secret rotate --name encryption` still sign deliveries the receiver can
 * verify, `lms secret reseal` moves the old ones to the new key (a second run finds nothing to
 * do), and the billing route accepts the old and the new platform secret during a rotation, then
 * only the new one. The stack reads its secrets on every use (LMS_SECRET_REFRESH_MINUTES=0), so the
 * end of the billing window shows at once; the cache's own timing is a unit test's (secrets-manager).
 */
import { createHmac, randomBytes, randomUUID } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { cliSecretFiles } from '../../local/stack-secrets.ts'
import { parsePlatformSecret } from '../../shared/crypto/platform-secret-value.ts'
import { call } from '../helpers/http.ts'
import { startReceiver, type Received } from '../helpers/receiver.ts'
import { startStack, type Stack } from '../helpers/stack.ts'
import { userBody } from '../helpers/tenants.ts'

function verify(got: Received | undefined, secret: string): boolean {
  const raw = got?.raw.toString('utf8') ?? ''
  const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(got?.headers['x-service-signature'])) ?? []
  return v1 === createHmac('sha256', secret).update(`${t}.${raw}`).digest('hex')
}

async function ok(stack: Stack, ...args: string[]) {
  const out = await stack.cli(...args)
  expect(out.code, out.stdout).toBe(0)
  return out.json as Record<string, unknown>
}

describe('Secret rotation on the local stack, through `lms`', () => {
  it('rotates the encryption ring and re-seals without orphaning a webhook secret; billing takes two secrets for a while', async () => {
    // Prepare: a stack of its own, a tenant with a webhook endpoint sealed under the first key.
    const oldBilling = randomBytes(24).toString('base64url')
    const stack = await startStack({
      LMS_DATA_DIR: ':memory:',
      LMS_SECRET_REFRESH_MINUTES: '0',
      LMS_PLATFORM_METRICS_SECRET: oldBilling,
    })
    const gateway = await stack.ready
    const receiver = await startReceiver()
    const slug = `rot-${randomBytes(4).toString('hex')}`
    await ok(stack, 'tenant', 'create', '--slug', slug, '--plan', 'growth')
    const hook = (path: string) =>
      ok(
        stack,
        'webhook',
        'create',
        '--tenant',
        slug,
        '--url',
        `${receiver.url}${path}`,
        '--events',
        'user.created',
      )
    const before = String((await hook('/before')).secret)
    const key = String((await ok(stack, 'api-key', 'create', '--tenant', slug, '--scopes', 'read,write')).key)
    const createUser = async (email: string) => {
      const res = await call('POST', '/api/v1/users', {
        gateway,
        host: `${slug}.localhost`,
        key,
        body: userBody({ email }),
      })
      expect(res.status).toBe(201)
    }

    // Act: rotate, then seal a second endpoint's secret under the new key.
    const rotated = await ok(stack, 'secret', 'rotate', '--name', 'encryption')
    const after = String((await hook('/after')).secret)
    await createUser('first@example.com')

    // Assess: the operator sees the key id, never a secret; both endpoints get signed deliveries.
    expect(Object.keys(rotated).sort()).toEqual(['key_id', 'name', 'rotated_at'])
    expect(rotated).toMatchObject({ name: 'encryption', key_id: 'k1' })
    const first = await receiver.waitFor(2, 90_000)
    expect(
      verify(
        first.find((r) => r.url === '/before'),
        before,
      ),
    ).toBe(true)
    expect(
      verify(
        first.find((r) => r.url === '/after'),
        after,
      ),
    ).toBe(true)

    // Act: re-seal, twice.
    const resealed = await ok(stack, 'secret', 'reseal')
    const again = await ok(stack, 'secret', 'reseal', '--tenants-per-page', '1')

    // Assess: the old secret moved once; the second run finds every value current already.
    expect(resealed).toMatchObject({ resealed: 1, changed: 0, unopenable: [], cursor: null })
    expect(again).toMatchObject({
      resealed: 0,
      current: Number(resealed.current) + 1,
      changed: 0,
      unopenable: [],
      cursor: null,
    })
    const page = await ok(stack, 'secret', 'reseal', '--pages', '1', '--tenants-per-page', '1')
    expect(page).toMatchObject({ tenants: 1, resealed: 0 })
    expect(page.cursor).toEqual(expect.any(String))
    await createUser('second@example.com')
    const second = (await receiver.waitFor(4, 90_000)).slice(2)
    expect(
      verify(
        second.find((r) => r.url === '/before'),
        before,
      ),
    ).toBe(true)
    expect(
      verify(
        second.find((r) => r.url === '/after'),
        after,
      ),
    ).toBe(true)

    // Billing: the orchestrator's secret is rotated; the new one is read where the operator keeps it.
    // A tenant id no tenant has: an accepted secret gets as far as 404, a refused one stops at 401.
    const billing = (secret: string) =>
      call('GET', `/api/v1/billing/metrics?tenantId=${randomUUID()}`, {
        gateway,
        headers: { authorization: `Bearer ${secret}` },
      })
    expect((await billing(oldBilling)).status).toBe(404)
    const billingRotated = await ok(stack, 'secret', 'rotate', '--name', 'billing', '--overlap-hours', '2')
    expect(billingRotated).toMatchObject({ name: 'billing', key_id: 'k1' })
    expect(Date.parse(String(billingRotated.previous_accepted_until))).toBeGreaterThan(Date.now() + 3_500_000)
    const files = cliSecretFiles(Number(stack.env.LMS_DYNAMODB_PORT), ':memory:')
    const newBilling = parsePlatformSecret(readFileSync(files?.platformMetricsSecret ?? '', 'utf8')).current
    expect((await billing(newBilling)).status).toBe(404)
    expect((await billing(oldBilling)).status).toBe(404)
    await ok(stack, 'secret', 'retire-previous', '--name', 'billing')
    expect((await billing(oldBilling)).status).toBe(401)
    expect((await billing(newBilling)).status).toBe(404)
  }, 400_000)
})
