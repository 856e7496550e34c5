/**
 * Idempotency-Key on keyed POSTs (api-additions section 2, decision 0038), through HTTP.
 */
import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { IDEMPOTENCY_LEASE_MS, requestHash } from '../../shared/domain/idempotency.ts'
import { claimIdempotencyKey } from '../../shared/store/idempotency/idempotency-store.ts'
import type { Reply } from '../helpers/http.ts'
import { newTenant, userBody, type TestTenant } from '../helpers/tenants.ts'

const keyed = (key: string) => ({ headers: { 'idempotency-key': key } })

const usersTotal = async (t: TestTenant): Promise<number> => {
  const list = await t.api.get('/api/v1/users')
  expect(list.status).toBe(200)
  return list.body.meta.total as number
}

const isReplay = (reply: Reply) => reply.headers['idempotent-replayed'] === 'true'

describe('Idempotency-Key on keyed POSTs', () => {
  it('answers a repeated request with the kept status and bytes, and creates one user', async () => {
    const t = await newTenant()
    const key = randomUUID()
    const body = userBody()

    const first = await t.api.post('/api/v1/users', body, keyed(key))
    // The same body with its fields in another order: compared as parsed JSON.
    const reordered = Object.fromEntries(Object.entries(body).reverse())
    const again = await t.api.post('/api/v1/users', reordered, keyed(key))

    expect(first.status).toBe(201)
    expect(isReplay(first)).toBe(false)
    expect(again.status).toBe(201)
    expect(isReplay(again)).toBe(true)
    expect(again.raw.equals(first.raw)).toBe(true)
    expect(again.headers['content-type']).toBe(first.headers['content-type'])
    expect(await usersTotal(t)).toBe(1)
  })

  it('refuses the key with another body or path (422) and a malformed key (400), naming the header', async () => {
    const t = await newTenant()
    const key = randomUUID()
    expect((await t.api.post('/api/v1/users', userBody(), keyed(key))).status).toBe(201)

    const otherBody = await t.api.post('/api/v1/users', userBody(), keyed(key))
    const otherPath = await t.api.post('/api/v1/groups', { name: `G ${key}` }, keyed(key))
    const tooLong = await t.api.post('/api/v1/users', userBody(), keyed('k'.repeat(256)))

    expect(otherBody.status).toBe(422)
    expect(otherBody.body.error.message).toContain('Idempotency-Key')
    expect(otherPath.status).toBe(422)
    expect(otherPath.body.error.message).toContain('Idempotency-Key')
    expect(tooLong.status).toBe(400)
    expect(tooLong.body.error.message).toContain('Idempotency-Key')
    expect(await usersTotal(t)).toBe(1)
  })

  it('of 10 requests sent at once with one key, creates once; the others wait (409) or replay', async () => {
    const t = await newTenant()
    const key = randomUUID()
    const body = userBody()

    const replies = await Promise.all(
      Array.from({ length: 10 }, () => t.api.post('/api/v1/users', body, keyed(key))),
    )

    const created = replies.filter((r) => r.status === 201 && !isReplay(r))
    expect(created).toHaveLength(1)
    for (const r of replies.filter((r) => r !== created[0])) {
      if (r.status === 409) expect(r.headers['retry-after']).toBe('1')
      else {
        expect(r.status).toBe(201)
        expect(isReplay(r)).toBe(true)
        expect(r.raw.equals(created[0]?.raw ?? Buffer.alloc(0))).toBe(true)
      }
    }
    expect(await usersTotal(t)).toBe(1)
  })

  it('answers 409 with Retry-After: 1 while the first runs, and lets a retry take over a claim whose holder died', async () => {
    const t = await newTenant()
    const body = userBody()
    const hash = requestHash('POST', '/api/v1/users', body)
    // A request still running (its claim fresh), and one whose container died mid-way (lease run out).
    const running = randomUUID()
    const died = randomUUID()
    expect(await claimIdempotencyKey(t.tenant, running, hash, randomUUID())).toBe(true)
    const longAgo = new Date(Date.now() - IDEMPOTENCY_LEASE_MS - 1_000)
    expect(await claimIdempotencyKey(t.tenant, died, hash, randomUUID(), longAgo)).toBe(true)

    const waiting = await t.api.post('/api/v1/users', body, keyed(running))
    const takenOver = await t.api.post('/api/v1/users', body, keyed(died))
    const replay = await t.api.post('/api/v1/users', body, keyed(died))

    expect(waiting.status).toBe(409)
    expect(waiting.headers['retry-after']).toBe('1')
    expect(takenOver.status).toBe(201)
    expect(isReplay(takenOver)).toBe(false)
    expect(isReplay(replay)).toBe(true)
    expect(replay.raw.equals(takenOver.raw)).toBe(true)
    expect(await usersTotal(t)).toBe(1)
  })

  it('keeps a 4xx answer: the same request is answered it again, replayed', async () => {
    const t = await newTenant()
    const key = randomUUID()
    const invalid = { ...userBody(), email: 'not an address' }

    const first = await t.api.post('/api/v1/users', invalid, keyed(key))
    const again = await t.api.post('/api/v1/users', invalid, keyed(key))

    expect(first.status).toBe(400)
    expect(again.status).toBe(400)
    expect(isReplay(again)).toBe(true)
    expect(again.raw.equals(first.raw)).toBe(true)
  })

  it('scopes keys to the tenant: the same key in another tenant is a first request there', async () => {
    const a = await newTenant()
    const b = await newTenant()
    const key = randomUUID()
    const body = userBody()

    const inA = await a.api.post('/api/v1/users', body, keyed(key))
    const inB = await b.api.post('/api/v1/users', body, keyed(key))

    expect(inA.status).toBe(201)
    expect(inB.status).toBe(201)
    expect(isReplay(inB)).toBe(false)
    expect(inB.body.data.id).not.toBe(inA.body.data.id)
    expect(await usersTotal(b)).toBe(1)
  })

  it('ignores the header on PATCH: each request runs', async () => {
    const t = await newTenant()
    const user = await t.api.post('/api/v1/users', userBody())
    const key = randomUUID()
    const path = `/api/v1/users/${user.body.data.id as string}`

    const first = await t.api.patch(path, { first_name: 'Grace' }, keyed(key))
    const second = await t.api.patch(path, { first_name: 'Mary' }, keyed(key))

    expect(first.status).toBe(200)
    expect(second.status).toBe(200)
    expect(isReplay(second)).toBe(false)
    expect(second.body.data.first_name).toBe('Mary')
  })

  it('counts a replay as one request against the month, writing nothing', async () => {
    const t = await newTenant()
    const key = randomUUID()
    const body = userBody()
    const before = (await t.api.get('/api/v1/usage')).body.data.requests as number

    expect((await t.api.post('/api/v1/users', body, keyed(key))).status).toBe(201)
    expect(isReplay(await t.api.post('/api/v1/users', body, keyed(key)))).toBe(true)
    const after = (await t.api.get('/api/v1/usage')).body.data.requests as number

    // The POST, its replay and this usage request: each counted once, as any request is.
    expect(after).toBe(before + 3)
    expect(await usersTotal(t)).toBe(1)
  })
})
