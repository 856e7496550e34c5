import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { updateTenant } from '../../shared/services/tenants/tenants-service.ts'
import { client, type Reply } from '../helpers/http.ts'
import { newTenant } from '../helpers/tenants.ts'

/** The IETF draft's `RateLimit` field of a reply: remaining and seconds to reset. */
function rateLimitOf(reply: Reply): { r: number; t: number } {
  const m = /^"minute";r=(\d+);t=(\d+)$/.exec(String(reply.headers['ratelimit']))
  expect(m, `RateLimit: ${String(reply.headers['ratelimit'])}`).not.toBeNull()
  return { r: Number(m?.[1]), t: Number(m?.[2]) }
}

const secondsInMonthOf = (at: Date) =>
  (Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1) -
    Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1)) /
  1000

/** Calls `send` twice, again while the pair was cut by a minute's end, so both count in one minute. */
async function pairInOneMinute(send: () => Promise<Reply>): Promise<[Reply, Reply]> {
  for (;;) {
    const first = await send()
    const second = await send()
    if (first.headers['x-ratelimit-reset'] === second.headers['x-ratelimit-reset']) return [first, second]
  }
}

describe('Rate-limit fields and GET /api/v1/usage', () => {
  it('adds RateLimit-Policy with the monthly cap and RateLimit beside X-RateLimit-* on a normal answer', async () => {
    const t = await newTenant()
    const at = new Date()
    const reply = await t.api.get('/api/v1/users')
    expect(reply.status).toBe(200)
    // Growth's cap (250,000) over the calendar month the request falls in.
    expect(reply.headers['ratelimit-policy']).toBe(
      `"minute";q=1000;w=60, "month";q=250000;w=${secondsInMonthOf(at)}`,
    )
    const { r, t: seconds } = rateLimitOf(reply)
    expect(r).toBe(Number(reply.headers['x-ratelimit-remaining']))
    expect(seconds).toBeGreaterThanOrEqual(0)
    expect(seconds).toBeLessThanOrEqual(60)
    expect(reply.headers['x-ratelimit-limit']).toBe('1000')
  })

  it('announces only the minute for a tenant without a monthly cap, and on errors too', async () => {
    const t = await newTenant('enterprise')
    const notFound = await t.api.get(`/api/v1/users/${randomUUID()}`)
    expect(notFound.status).toBe(404)
    expect(notFound.headers['ratelimit-policy']).toBe('"minute";q=1000;w=60')
    expect(rateLimitOf(notFound).r).toBe(Number(notFound.headers['x-ratelimit-remaining']))
  })

  it('carries the fields on a 429 of the monthly cap, the policy naming the tenant’s cap', async () => {
    const t = await newTenant()
    await updateTenant(t.slug, { monthlyApiCap: 2 })
    const at = new Date()
    expect((await t.api.get('/api/v1/users')).status).toBe(200)
    expect((await t.api.get('/api/v1/users')).status).toBe(200)
    const capped = await t.api.get('/api/v1/users')
    expect(capped.status).toBe(429)
    expect(capped.headers['ratelimit-policy']).toBe(
      `"minute";q=1000;w=60, "month";q=2;w=${secondsInMonthOf(at)}`,
    )
    expect(rateLimitOf(capped).r).toBe(Number(capped.headers['x-ratelimit-remaining']))
    expect(capped.headers['x-ratelimit-limit']).toBe('1000')
  })

  it('tells the key’s minute and the tenant’s month, itself included, agreeing with its own headers', async () => {
    const t = await newTenant()
    // Prepare: three requests of another key of the tenant count in the month, not in this key's minute.
    const other = client(t.slug, await t.key(['read']))
    for (let i = 0; i < 3; i++) expect((await other.get('/api/v1/users')).status).toBe(200)
    const reader = await t.key(['read'])
    const api = client(t.slug, reader)

    // Act
    const [first, second] = await pairInOneMinute(() => api.get('/api/v1/usage'))

    // Assess
    expect(first.status).toBe(200)
    const now = new Date()
    expect(first.body.data).toEqual({
      period_start: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString(),
      period_end: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString(),
      requests: expect.any(Number),
      monthly_cap: 250000,
      remaining: expect.any(Number),
      key: {
        id: expect.any(String),
        prefix: reader.slice(0, first.body.data.key.prefix.length),
        minute: { limit: 1000, remaining: expect.any(Number), reset_seconds: expect.any(Number) },
      },
    })
    expect(first.body.data.key.prefix.length).toBeGreaterThan(0)
    expect(reader.startsWith(first.body.data.key.prefix)).toBe(true)
    for (const reply of [first, second]) {
      const { data } = reply.body
      expect(data.remaining).toBe(250000 - data.requests)
      expect(data.key.minute.remaining).toBe(Number(reply.headers['x-ratelimit-remaining']))
      expect(data.key.minute.remaining).toBe(rateLimitOf(reply).r)
      expect(data.key.minute.reset_seconds).toBe(rateLimitOf(reply).t)
    }
    // Each /usage call is metered like any GET, and its answer counts itself.
    expect(first.body.data.requests).toBeGreaterThanOrEqual(4)
    expect(second.body.data.requests).toBe(first.body.data.requests + 1)
    expect(second.body.data.remaining).toBe(first.body.data.remaining - 1)
    expect(second.body.data.key.minute.remaining).toBe(first.body.data.key.minute.remaining - 1)
    expect(first.body.data.key.id).toBe(second.body.data.key.id)
  })

  it('answers monthly_cap and remaining null for a tenant without a cap', async () => {
    const t = await newTenant('enterprise')
    const reply = await t.api.get('/api/v1/usage')
    expect(reply.status).toBe(200)
    expect(reply.body.data.monthly_cap).toBeNull()
    expect(reply.body.data.remaining).toBeNull()
    expect(reply.body.data.requests).toBe(1)
  })

  it('needs the read scope', async () => {
    const t = await newTenant()
    const writer = client(t.slug, await t.key(['write']))
    const reply = await writer.get('/api/v1/usage')
    expect(reply.status).toBe(403)
    expect(reply.body.error.message).toContain('read')
  })

  it('never shows another tenant’s figures', async () => {
    const a = await newTenant()
    const b = await newTenant()
    for (let i = 0; i < 5; i++) expect((await a.api.get('/api/v1/users')).status).toBe(200)
    const ofB = await b.api.get('/api/v1/usage')
    expect(ofB.body.data.requests).toBe(1)
    const ofA = await a.api.get('/api/v1/usage')
    expect(ofA.body.data.requests).toBe(6)
    expect(ofA.body.data.key.id).not.toBe(ofB.body.data.key.id)
    // A's key on B's host is no key of B's: refused before any figure is read.
    expect((await client(b.slug, a.adminKey).get('/api/v1/usage')).status).toBe(401)
  })
})
