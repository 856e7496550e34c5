import {
  ConditionalCheckFailedException,
  ProvisionedThroughputExceededException,
  TransactionCanceledException,
} from '@aws-sdk/client-dynamodb'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { generateKey } from '../../../shared/domain/api-keys/key-format.ts'
import { operator } from '../../../shared/domain/actor.ts'
import { ConflictError, EntitlementError, ServiceUnavailableError } from '../../../shared/domain/errors.ts'
import { toErrorResult } from '../../../shared/http/errors.ts'
import type { TenantContext } from '../../../shared/domain/tenants/tenant.ts'
import { createUser, getUser } from '../../../shared/services/users-service.ts'
import { consumeMinuteWindow } from '../../../shared/store/rate-limits-store.ts'
import { handler } from '../../../functions/users/handler.ts'
import type { DocumentOperations } from '../../../shared/store/documents.ts'
import type { HttpEvent } from '../../../shared/http/context.ts'
import type { Context } from 'aws-lambda'
import { fakeDocuments } from '../../helpers/fake-documents.ts'

const ddb = fakeDocuments()
const tenant: TenantContext = { id: '11111111-1111-4111-8111-111111111111', plan: 'free' }
const meta = { $metadata: {} }
const input = { email: 'a@b.co', first_name: 'A', last_name: 'B', role: 'learner' as const }

function cancelled(codes: string[]) {
  return new TransactionCanceledException({
    ...meta,
    message: 'cancelled',
    CancellationReasons: codes.map((Code) => ({ Code })),
  })
}

type SentItem = NonNullable<DocumentOperations['TransactWriteItems'][0]['TransactItems']>[number]

/** Cancels a transaction on the condition of the items `which` picks by what they are, wherever they sit. */
function failing(which: (item: SentItem) => boolean) {
  return (input: DocumentOperations['TransactWriteItems'][0]) =>
    Promise.reject(
      cancelled((input.TransactItems ?? []).map((i) => (which(i) ? 'ConditionalCheckFailed' : 'None'))),
    )
}
const isCounters = (i: SentItem) => i.Update?.Key?.sk === 'COUNTERS'
const isEmailGuard = (i: SentItem) => String(i.Put?.Item?.sk).startsWith('EMAIL#')

beforeEach(() => {
  ddb.reset()
  // Custom field definitions: none.
  ddb.on('Query').resolves({ Items: [] })
})

afterEach(() => {
  ddb.reset()
})

describe('Fault injection: store errors become domain errors', () => {
  it('maps throttling on a read to ServiceUnavailableError, and every key is in the caller tenant', async () => {
    ddb.on('GetItem').rejects(new ProvisionedThroughputExceededException({ ...meta, message: 'slow down' }))
    await expect(getUser(tenant, '22222222-2222-4222-8222-222222222222')).rejects.toBeInstanceOf(
      ServiceUnavailableError,
    )
    const reads = ddb.calls('GetItem')
    expect(reads.length).toBeGreaterThan(0)
    for (const read of reads) expect(String(read.Key?.pk)).toBe(`T#${tenant.id}`)
  })

  it('maps a failed seat-cap condition to the entitlement error and a failed e-mail guard to 409', async () => {
    ddb.on('GetItem').resolves({})
    ddb.on('TransactWriteItems').callsFakeOnce(failing(isCounters))
    await expect(createUser(tenant, input, operator)).rejects.toBeInstanceOf(EntitlementError)
    ddb.reset()
    ddb.on('GetItem').resolves({})
    ddb.on('Query').resolves({ Items: [] })
    ddb.on('TransactWriteItems').callsFake(failing(isEmailGuard))
    await expect(createUser(tenant, input, operator)).rejects.toBeInstanceOf(ConflictError)
  })

  it('retries a transaction that lost a conflict, then succeeds', async () => {
    ddb.on('GetItem').resolves({})
    ddb
      .on('TransactWriteItems')
      .rejectsOnce(cancelled(['None', 'None', 'TransactionConflict', 'None']))
      .resolves({})
    const user = await createUser(tenant, input, operator)
    expect(user.email).toBe('a@b.co')
    expect(ddb.calls('TransactWriteItems')).toHaveLength(2)
  })

  it.each([['ThrottlingError'], ['ProvisionedThroughputExceeded']])(
    'maps a transaction cancelled for %s on one item to ServiceUnavailableError (503 with Retry-After)',
    async (code) => {
      // Prepare
      ddb.on('GetItem').resolves({})
      ddb.on('TransactWriteItems').rejects(cancelled(['None', code, 'None', 'None']))

      // Act
      const err: unknown = await createUser(tenant, input, operator).catch((e: unknown) => e)

      // Assess
      expect(err).toBeInstanceOf(ServiceUnavailableError)
      expect(toErrorResult(err).result).toMatchObject({ statusCode: 503, headers: { 'retry-after': '1' } })
    },
  )

  it('never maps a transaction cancelled for a ValidationError (an item too large) to 503', async () => {
    // Prepare
    ddb.on('GetItem').resolves({})
    ddb.on('TransactWriteItems').rejects(cancelled(['ValidationError', 'None', 'None', 'None']))

    // Act
    const err: unknown = await createUser(tenant, input, operator).catch((e: unknown) => e)

    // Assess: not retryable, so never "retry shortly"; and tried once, not retried as a conflict
    expect(err).not.toBeInstanceOf(ServiceUnavailableError)
    expect(toErrorResult(err).result.statusCode).not.toBe(503)
    expect(ddb.calls('TransactWriteItems')).toHaveLength(1)
  })

  it('reads a failed rate-window condition as a full window', async () => {
    ddb.on('UpdateItem').rejects(new ConditionalCheckFailedException({ ...meta, message: 'full' }))
    expect(await consumeMinuteWindow('k', 0, 1000, 120)).toBeUndefined()
  })
})

describe('Fault injection: the handler answers in the envelope, never with a stack', () => {
  const key = generateKey('live')
  const tenantItem = {
    id: tenant.id,
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
    tenant_id: tenant.id,
    prefix: key.prefix,
    hash: key.hash,
    env: 'live',
    scopes: ['read'],
    expires_at: null,
    revoked_at: null,
    // Every stored key has it; the key's decoder requires it.
    created_at: '2026-01-01T00:00:00.000Z',
  }
  const event = {
    version: '2.0',
    routeKey: 'GET /api/v1/users/{id}',
    rawPath: '/api/v1/users/22222222-2222-4222-8222-222222222222',
    rawQueryString: '',
    headers: { host: 'acme.localhost', authorization: `Bearer ${key.key}` },
    pathParameters: { id: '22222222-2222-4222-8222-222222222222' },
    requestContext: { requestId: 'r1', http: { method: 'GET' } },
    isBase64Encoded: false,
  } as unknown as HttpEvent

  function arrange(userRead: () => void) {
    ddb.on('GetItem', { Key: { pk: 'TENANT#acme', sk: 'TENANT' } }).resolves({ Item: tenantItem })
    ddb.on('GetItem', { Key: { pk: `APIKEY#${key.hash}`, sk: 'APIKEY' } }).resolves({ Item: keyItem })
    ddb.on('UpdateItem').resolves({ Attributes: { count: 1 } })
    userRead()
  }

  it('answers 503 with Retry-After when the user read is throttled', async () => {
    arrange(() =>
      ddb
        .on('GetItem', { Key: { pk: `T#${tenant.id}`, sk: 'USER#22222222-2222-4222-8222-222222222222' } })
        .rejects(
          new ProvisionedThroughputExceededException({ ...meta, message: 'throttled at partition X' }),
        ),
    )
    const res = await handler(event, {} as Context)
    expect(res.statusCode).toBe(503)
    expect(res.headers?.['retry-after']).toBe('1')
    expect(JSON.parse(res.body ?? '')).toMatchObject({ data: null, meta: null, error: { code: 503 } })
    expect(res.body).not.toContain('partition')
  })

  it('answers 503 with Retry-After, never 500, when a hot item keeps conflicting with other transactions', async () => {
    // Prepare: a write key; every TransactWriteItems on the hot course/counter loses its conflict
    arrange(() => {
      ddb.on('GetItem', { Key: { pk: `APIKEY#${key.hash}`, sk: 'APIKEY' } }).resolves({
        Item: { ...keyItem, scopes: ['read', 'write'] },
      })
      ddb.on('TransactWriteItems').rejects(cancelled(['None', 'None', 'TransactionConflict', 'None']))
    })
    const post = {
      ...event,
      routeKey: 'POST /api/v1/users',
      rawPath: '/api/v1/users',
      pathParameters: {},
      headers: { ...event.headers, 'content-type': 'application/json' },
      requestContext: { requestId: 'r2', http: { method: 'POST' } },
      body: JSON.stringify(input),
    } as unknown as HttpEvent

    // Act
    const res = await handler(post, {} as Context)

    // Assess: retried a few times first, then "retry shortly" in the envelope
    expect(ddb.calls('TransactWriteItems').length).toBeGreaterThan(1)
    expect(res.statusCode).toBe(503)
    expect(res.headers?.['retry-after']).toBe('1')
    expect(JSON.parse(res.body ?? '')).toMatchObject({ data: null, meta: null, error: { code: 503 } })
    expect(res.body).not.toMatch(/Transaction|Conflict/)
  })

  it('answers 500 with a bare message for an unexpected error', async () => {
    arrange(() =>
      ddb
        .on('GetItem', { Key: { pk: `T#${tenant.id}`, sk: 'USER#22222222-2222-4222-8222-222222222222' } })
        .rejects(new Error('ValidationException: secret table detail')),
    )
    const res = await handler(event, {} as Context)
    expect(res.statusCode).toBe(500)
    expect(JSON.parse(res.body ?? '')).toEqual({
      data: null,
      meta: null,
      error: { code: 500, message: 'Internal server error' },
    })
    expect(res.body).not.toMatch(/secret|at |\.ts/)
  })
})
