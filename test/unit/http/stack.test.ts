import {
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb'
import type { Context } from 'aws-lambda'
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb'
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { allCalls, mockDocuments } from '../../helpers/mock-documents.ts'

// Client addresses are counted as keyed pseudonyms: a key, as the stack's configuration gives one;
// and every request reads its tenant (no warm cache), as in the stack-backed tests.
vi.hoisted(() => {
  process.env.LMS_ENCRYPTION_KEY ??= Buffer.alloc(32, 7).toString('base64')
  process.env.LMS_TENANT_CACHE_MS = '0'
})

const { generateKey } = await import('../../../shared/domain/api-keys/key-format.ts')
const { handler: plans } = await import('../../../functions/plans/handler.ts')
const { handler: visitors } = await import('../../../functions/public/handler.ts')
const { handler: users } = await import('../../../functions/users/handler.ts')
const { handler: fallback } = await import('../../../functions/fallback/handler.ts')
type HttpEvent = import('../../../shared/http/context.ts').HttpEvent

const ddb = mockDocuments()
const tenantId = '11111111-1111-4111-8111-111111111111'
const userId = '22222222-2222-4222-8222-222222222222'
const key = generateKey('live')

function event(method: string, routeKey: string, path: string, extra: Partial<HttpEvent> = {}): HttpEvent {
  return {
    version: '2.0',
    routeKey,
    rawPath: path,
    rawQueryString: '',
    headers: { host: 'acme.localhost', authorization: `Bearer ${key.key}` },
    pathParameters: {},
    requestContext: { requestId: 'r1', http: { method, sourceIp: '203.0.113.9' } },
    isBase64Encoded: false,
    ...extra,
  } as unknown as HttpEvent
}

const tenantItem = {
  id: tenantId,
  slug: 'acme',
  name: 'Acme',
  plan: 'growth',
  kind: 'customer',
  status: 'active',
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
}
const keyItem = {
  id: 'key-1',
  tenant_id: tenantId,
  prefix: key.prefix,
  hash: key.hash,
  env: 'live',
  scopes: ['read'],
  expires_at: null,
  revoked_at: null,
  created_at: '2026-01-01T00:00:00.000Z',
}

/** What each DynamoDB call addressed, in order: `Op pk / sk`. */
function sent(): string[] {
  return allCalls(ddb).map((call) => {
    const input = call.input as {
      Key?: { pk: string; sk: string }
      Item?: { pk: string; sk: string }
    }
    const addressed = input.Key ?? input.Item
    const op = call.op.replace(/Item$/, '')
    return addressed ? `${op} ${addressed.pk} / ${addressed.sk}` : op
  })
}

beforeEach(() => {
  ddb.reset()
  ddb.on(GetCommand).resolves({})
  ddb.on(GetCommand, { Key: { pk: 'TENANT#acme', sk: 'TENANT' } }).resolves({ Item: tenantItem })
  ddb.on(GetCommand, { Key: { pk: `APIKEY#${key.hash}`, sk: 'APIKEY' } }).resolves({ Item: keyItem })
  ddb.on(UpdateCommand).resolves({ Attributes: { count: 1 } })
  ddb.on(PutCommand).resolves({})
  ddb.on(QueryCommand).resolves({ Items: [] })
  ddb.on(TransactWriteCommand).resolves({})
})

afterAll(() => ddb.restore())

describe('Function: httpStack', () => {
  it('serves a public route without a window on a stack that reads nothing', async () => {
    // Act
    const res = await plans(event('GET', 'GET /api/v1/plans', '/api/v1/plans'), {} as Context)

    // Assess
    expect(res.statusCode).toBe(200)
    expect(sent()).toEqual([])
    expect(res.headers?.['x-ratelimit-limit']).toBeUndefined()
  })

  it('counts a public route with a window per client address, and nothing of tenant or key', async () => {
    // Act
    const res = await visitors(
      event('POST', 'POST /api/v1/contact', '/api/v1/contact', {
        body: JSON.stringify({ name: 'Ada', email: 'ada@example.com', message: 'Hello' }),
      }),
      {} as Context,
    )

    // Assess
    expect(res.statusCode).toBe(202)
    expect(sent()).toEqual([
      expect.stringMatching(/^Update RLIP#POST \/api\/v1\/contact#[0-9a-f]{32}#\d+ \/ RL$/),
      expect.stringMatching(/^Put PLATFORM#CONTACT \/ CONTACT#/),
    ])
    expect(res.headers?.['x-ratelimit-limit']).toBe('10')
  })

  it('reads tenant and key, counts the minute and the month, then serves a keyed route', async () => {
    // Act
    const res = await users(
      event('GET', 'GET /api/v1/users/{id}', `/api/v1/users/${userId}`, { pathParameters: { id: userId } }),
      {} as Context,
    )

    // Assess
    expect(res.statusCode).toBe(404)
    expect(sent()).toEqual([
      'Get TENANT#acme / TENANT',
      `Get APIKEY#${key.hash} / APIKEY`,
      expect.stringMatching(/^Update RL#key-1#\d+ \/ RL$/),
      expect.stringMatching(new RegExp(`^Update T#${tenantId} / USAGE#\\d{4}-\\d{2}$`)),
      `Get T#${tenantId} / USER#${userId}`,
    ])
    expect(res.headers?.['x-ratelimit-limit']).toBe('1000')
  })

  it("refuses a keyed route its scope after counting the key's minute, never the tenant's month", async () => {
    // Act: a read key on the admin-only DELETE
    const res = await users(
      event('DELETE', 'DELETE /api/v1/users/{id}', `/api/v1/users/${userId}`, {
        pathParameters: { id: userId },
      }),
      {} as Context,
    )

    // Assess
    expect(res.statusCode).toBe(403)
    expect(sent()).toEqual([
      'Get TENANT#acme / TENANT',
      `Get APIKEY#${key.hash} / APIKEY`,
      expect.stringMatching(/^Update RL#key-1#\d+ \/ RL$/),
    ])
  })

  it("answers 429 to a GET whose tenant's month is capped, discarding the read made meanwhile; this container then meters first", async () => {
    // Prepare: the month's counter refuses (cap reached); a tenant of its own, so no other test's
    // capped month is remembered for it
    const capped = { ...tenantItem, id: '33333333-3333-4333-8333-333333333333', slug: 'capped' }
    ddb.on(GetCommand, { Key: { pk: 'TENANT#capped', sk: 'TENANT' } }).resolves({ Item: capped })
    ddb.on(GetCommand, { Key: { pk: `APIKEY#${key.hash}`, sk: 'APIKEY' } }).resolves({
      Item: { ...keyItem, tenant_id: capped.id },
    })
    ddb
      .on(UpdateCommand, { Key: { pk: `T#${capped.id}` } })
      .rejects(new ConditionalCheckFailedException({ message: 'capped', $metadata: {} }))
    const get = () =>
      users(
        event('GET', 'GET /api/v1/users/{id}', `/api/v1/users/${userId}`, {
          pathParameters: { id: userId },
          headers: { host: 'capped.localhost', authorization: `Bearer ${key.key}` },
        }),
        {} as Context,
      )

    // Act
    const first = await get()
    const readsOfFirst = sent().filter((s) => s.includes('USER#'))
    ddb.resetHistory()
    const second = await get()

    // Assess
    expect(first.statusCode).toBe(429)
    expect(readsOfFirst).toEqual([`Get T#${capped.id} / USER#${userId}`])
    expect(second.statusCode).toBe(429)
    expect(sent().filter((s) => s.includes('USER#'))).toEqual([])
  })

  it("runs a write only once the tenant's month admitted it", async () => {
    // Prepare
    ddb
      .on(UpdateCommand, { Key: { pk: `T#${tenantId}` } })
      .rejects(new ConditionalCheckFailedException({ message: 'capped', $metadata: {} }))
    ddb.on(GetCommand, { Key: { pk: `APIKEY#${key.hash}`, sk: 'APIKEY' } }).resolves({
      Item: { ...keyItem, scopes: ['read', 'write'] },
    })

    // Act
    const res = await users(
      event('PATCH', 'PATCH /api/v1/users/{id}', `/api/v1/users/${userId}`, {
        pathParameters: { id: userId },
        body: JSON.stringify({ first_name: 'Ada' }),
      }),
      {} as Context,
    )

    // Assess
    expect(res.statusCode).toBe(429)
    expect(sent()).toEqual([
      'Get TENANT#acme / TENANT',
      `Get APIKEY#${key.hash} / APIKEY`,
      expect.stringMatching(/^Update RL#key-1#\d+ \/ RL$/),
      expect.stringMatching(new RegExp(`^Update T#${tenantId} / USAGE#\\d{4}-\\d{2}$`)),
    ])
  })

  it('answers a request that matches no route without reading anything', async () => {
    // Act
    const res = await fallback(
      event('GET', '$default', '/api/v1/nothing-here', { headers: { host: 'acme.localhost' } }),
      {} as Context,
    )

    // Assess
    expect(res.statusCode).toBe(404)
    expect(sent()).toEqual([])
  })
})
