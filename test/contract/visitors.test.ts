/**
 * The keyless routes of the corporate site: POST /api/v1/signup (a free tenant and its owner, all
 * or nothing) and POST /api/v1/contact, each limited per client address and readable cross-origin
 * by the corporate site only. Each test speaks from its own loopback address (127.x.y.z), so the
 * per-address windows of different tests never meet.
 */
import { randomBytes, randomInt } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { getTenantBySlug } from '../../shared/store/tenants/tenants-store.ts'
import { listOutboxEvents } from '../../shared/store/outbox/outbox-store.ts'
import { getUserCounters } from '../../shared/store/users/users-store.ts'
import { lms } from '../helpers/cli.ts'
import { call, type CallOptions } from '../helpers/http.ts'

const corporate = 'https://www.example.com'

/** A loopback address of this test's own. */
const newAddress = () => `127.${randomInt(1, 255)}.${randomInt(0, 256)}.${randomInt(1, 255)}`

const slug = () => `s-${randomBytes(5).toString('hex')}`

function signupBody(overrides: Record<string, unknown> = {}) {
  return {
    organization_name: 'Acme Training',
    slug: slug(),
    email: `owner-${randomBytes(3).toString('hex')}@acme.example`,
    first_name: 'Grace',
    last_name: 'Hopper',
    ...overrides,
  }
}

const post = (path: string, body: unknown, localAddress: string, o: CallOptions = {}) =>
  call('POST', path, { host: 'www.localhost', body, localAddress, ...o })

describe('Route: POST /api/v1/signup', () => {
  it('creates a free tenant and its owner in one write, with no user.created event', async () => {
    // Prepare
    const body = signupBody({ slug: `Mixed-${randomBytes(3).toString('hex')}`, locale: 'fr-CA' })

    // Act
    const reply = await post('/api/v1/signup', body, newAddress())

    // Assess
    expect(reply.status).toBe(201)
    const { tenant, owner, portal_url } = reply.body.data
    expect(tenant).toMatchObject({
      slug: body.slug.toLowerCase(),
      name: 'Acme Training',
      plan: 'free',
      status: 'active',
    })
    expect(owner).toMatchObject({
      email: body.email,
      first_name: 'Grace',
      last_name: 'Hopper',
      role: 'owner',
    })
    expect(portal_url).toBe(`https://${tenant.slug}.localhost`)
    const stored = await getTenantBySlug(tenant.slug)
    expect(stored).toMatchObject({ id: tenant.id, plan: 'free', kind: 'customer' })
    const user = await lms('user', 'get', '--tenant', tenant.slug, '--id', owner.id)
    expect(user.json).toMatchObject({ role: 'owner', is_active: true, locale: 'fr-CA' })
    const ctx = { id: tenant.id, plan: 'free' as const }
    expect(await getUserCounters(ctx)).toMatchObject({ total: 1, active: 1 })
    expect((await listOutboxEvents(ctx)).map((e) => e.event)).not.toContain('user.created')
  })

  it('answers 409 for a taken or reserved slug, 400 naming the field otherwise, and writes nothing', async () => {
    // Prepare
    const from = newAddress()
    const taken = signupBody()
    expect((await post('/api/v1/signup', taken, from)).status).toBe(201)
    const free = slug()

    // Act
    const again = await post('/api/v1/signup', signupBody({ slug: taken.slug }), from)
    const reserved = await post('/api/v1/signup', signupBody({ slug: 'www' }), from)
    const badEmail = await post('/api/v1/signup', signupBody({ slug: free, email: 'not-an-address' }), from)
    const badSlug = await post('/api/v1/signup', signupBody({ slug: '-nope-' }), newAddress())

    // Assess
    expect(again.status).toBe(409)
    expect(reserved.status).toBe(409)
    expect(reserved.body.error.message).toBe(again.body.error.message.replace(taken.slug, 'www'))
    expect(badEmail.status).toBe(400)
    expect(badEmail.body.error.message).toMatch(/^email/)
    expect(badSlug.status).toBe(400)
    expect(badSlug.body.error.message).toMatch(/^slug/)
    expect(await getTenantBySlug(free)).toBeUndefined()
  })

  it('admits 5 sign-ups an hour from one address, then 429 with Retry-After; other addresses are unaffected', async () => {
    // Prepare
    const from = newAddress()
    const attempts = Array.from({ length: 5 }, () => signupBody({ email: 'not-an-address' }))

    // Act: refused requests count too, so a script cannot probe slugs without limit
    const replies = []
    for (const body of attempts) replies.push(await post('/api/v1/signup', body, from))
    const sixth = await post('/api/v1/signup', signupBody(), from)
    const elsewhere = await post('/api/v1/signup', signupBody(), newAddress())

    // Assess
    expect(replies.map((r) => r.status)).toEqual([400, 400, 400, 400, 400])
    expect(replies[4]?.headers['x-ratelimit-remaining']).toBe('0')
    expect(sixth.status).toBe(429)
    expect(sixth.body.error.message).toBe('Rate limit exceeded')
    expect(sixth.headers['x-ratelimit-limit']).toBe('5')
    const retryAfter = Number(sixth.headers['retry-after'])
    expect(retryAfter).toBeGreaterThan(0)
    expect(retryAfter).toBeLessThanOrEqual(3600)
    expect(elsewhere.status).toBe(201)
  })

  it('is readable cross-origin by the corporate site only, errors included, and answers its preflight', async () => {
    // Prepare
    const from = newAddress()

    // Act
    const allowed = await post('/api/v1/signup', signupBody(), from, { headers: { origin: corporate } })
    const refused = await post('/api/v1/signup', signupBody({ email: 'x' }), from, {
      headers: { origin: corporate },
    })
    const other = await post('/api/v1/signup', signupBody(), from, {
      headers: { origin: 'https://evil.example' },
    })
    const preflight = await call('OPTIONS', '/api/v1/signup', {
      host: 'www.localhost',
      headers: { origin: corporate, 'access-control-request-method': 'POST' },
    })

    // Assess
    expect(allowed.status).toBe(201)
    expect(allowed.headers['access-control-allow-origin']).toBe(corporate)
    expect(refused.status).toBe(400)
    expect(refused.headers['access-control-allow-origin']).toBe(corporate)
    expect(other.headers['access-control-allow-origin']).toBeUndefined()
    expect(preflight.status).toBe(204)
    expect(preflight.headers['access-control-allow-methods']).toBe('POST, OPTIONS')
  })
})

describe('Route: POST /api/v1/contact', () => {
  it('records the message (202) for the operators to read, and names a bad field', async () => {
    // Prepare
    const from = newAddress()
    const marker = randomBytes(6).toString('hex')

    // Act
    const reply = await post(
      '/api/v1/contact',
      { name: 'Ada', email: 'ada@example.com', company: 'Acme', message: `Pricing for 800 seats? ${marker}` },
      from,
    )
    const tooLong = await post(
      '/api/v1/contact',
      { name: 'Ada', email: 'ada@example.com', message: 'x'.repeat(5001) },
      from,
    )
    const listed = await lms('contact', 'list', '--limit', '20')

    // Assess
    expect(reply.status).toBe(202)
    expect(reply.body.data.id).toMatch(/^[0-9a-f-]{36}$/)
    expect(Date.parse(reply.body.data.received_at)).not.toBeNaN()
    expect(tooLong.status).toBe(400)
    expect(tooLong.body.error.message).toMatch(/^message/)
    const mine = listed.json.data.find((r: { id: string }) => r.id === reply.body.data.id)
    expect(mine).toMatchObject({
      name: 'Ada',
      company: 'Acme',
      subject: null,
      message: `Pricing for 800 seats? ${marker}`,
    })
  })

  it('admits 10 messages an hour from one address, then 429', async () => {
    // Prepare
    const from = newAddress()
    const body = { name: 'Bot', email: 'bot@example.com', message: 'hello' }

    // Act
    const statuses = []
    for (let i = 0; i < 11; i++) statuses.push((await post('/api/v1/contact', body, from)).status)

    // Assess
    expect(statuses).toEqual([...Array<number>(10).fill(202), 429])
  })
})
