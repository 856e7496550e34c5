import {
  BatchGetCommand,
  BatchWriteCommand,
  GetCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb'
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
import { createUser, getUser } from '../../../shared/services/users/users-service.ts'
import { consumeMinuteWindow } from '../../../shared/store/tenants/rate-limits-store.ts'
import {
  BATCH_ATTEMPTS,
  batchDelete,
  batchGet,
  UnprocessedItemsLeft,
  updateOrCurrent,
} from '../../../shared/store/core/db.ts'
import { handler } from '../../../functions/users/handler.ts'
import type { HttpEvent } from '../../../shared/http/context.ts'
import type { Context } from 'aws-lambda'
import { inputsOf, mockDocuments } from '../../helpers/mock-documents.ts'

const ddb = mockDocuments()
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

type SentItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number]

/** Cancels a transaction on the condition of the items `which` picks by what they are, wherever they sit. */
function failing(which: (item: SentItem) => boolean) {
  return (input: TransactWriteCommandInput) =>
    Promise.reject(
      cancelled((input.TransactItems ?? []).map((i) => (which(i) ? 'ConditionalCheckFailed' : 'None'))),
    )
}
const isCounters = (i: SentItem) => i.Update?.Key?.sk === 'COUNTERS'
const isEmailGuard = (i: SentItem) => String(i.Put?.Item?.sk).startsWith('EMAIL#')

beforeEach(() => {
  ddb.reset()
  // Custom field definitions: none.
  ddb.on(QueryCommand).resolves({ Items: [] })
})

afterEach(() => {
  ddb.reset()
})

describe('Fault injection: store errors become domain errors', () => {
  it('maps throttling on a read to ServiceUnavailableError, and every key is in the caller tenant', async () => {
    ddb.on(GetCommand).rejects(new ProvisionedThroughputExceededException({ ...meta, message: 'slow down' }))
    await expect(getUser(tenant, '22222222-2222-4222-8222-222222222222')).rejects.toBeInstanceOf(
      ServiceUnavailableError,
    )
    const reads = inputsOf(ddb, GetCommand)
    expect(reads.length).toBeGreaterThan(0)
    for (const read of reads) expect(String(read.Key?.pk)).toBe(`T#${tenant.id}`)
  })

  it('maps a failed seat-cap condition to the entitlement error and a failed e-mail guard to 409', async () => {
    ddb.on(GetCommand).resolves({})
    ddb.on(TransactWriteCommand).callsFakeOnce(failing(isCounters))
    await expect(createUser(tenant, input, operator)).rejects.toBeInstanceOf(EntitlementError)
    ddb.reset()
    ddb.on(GetCommand).resolves({})
    ddb.on(QueryCommand).resolves({ Items: [] })
    ddb.on(TransactWriteCommand).callsFake(failing(isEmailGuard))
    await expect(createUser(tenant, input, operator)).rejects.toBeInstanceOf(ConflictError)
  })

  it('retries a transaction that lost a conflict, then succeeds', async () => {
    ddb.on(GetCommand).resolves({})
    ddb
      .on(TransactWriteCommand)
      .rejectsOnce(cancelled(['None', 'None', 'TransactionConflict', 'None']))
      .resolves({})
    const user = await createUser(tenant, input, operator)
    expect(user.email).toBe('a@b.co')
    expect(inputsOf(ddb, TransactWriteCommand)).toHaveLength(2)
  })

  it.each([['ThrottlingError'], ['ProvisionedThroughputExceeded']])(
    'maps a transaction cancelled for %s on one item to ServiceUnavailableError (503 with Retry-After)',
    async (code) => {
      // Prepare
      ddb.on(GetCommand).resolves({})
      ddb.on(TransactWriteCommand).rejects(cancelled(['None', code, 'None', 'None']))

      // Act
      const err: unknown = await createUser(tenant, input, operator).catch((e: unknown) => e)

      // Assess
      expect(err).toBeInstanceOf(ServiceUnavailableError)
      expect(toErrorResult(err).result).toMatchObject({ statusCode: 503, headers: { 'retry-after': '1' } })
    },
  )

  it('never maps a transaction cancelled for a ValidationError (an item too large) to 503', async () => {
    // Prepare
    ddb.on(GetCommand).resolves({})
    ddb.on(TransactWriteCommand).rejects(cancelled(['ValidationError', 'None', 'None', 'None']))

    // Act
    const err: unknown = await createUser(tenant, input, operator).catch((e: unknown) => e)

    // Assess: not retryable, so never "retry shortly"; and tried once, not retried as a conflict
    expect(err).not.toBeInstanceOf(ServiceUnavailableError)
    expect(toErrorResult(err).result.statusCode).not.toBe(503)
    expect(inputsOf(ddb, TransactWriteCommand)).toHaveLength(1)
  })

  it('maps a call that ran out of time (after every attempt of the SDK) to ServiceUnavailableError, 503', async () => {
    const timeout = Object.assign(new Error('Request did not complete within 3000 ms'), {
      name: 'TimeoutError',
    })
    ddb.on(GetCommand).rejects(timeout)

    const err: unknown = await getUser(tenant, '22222222-2222-4222-8222-222222222222').catch(
      (e: unknown) => e,
    )

    expect(err).toBeInstanceOf(ServiceUnavailableError)
    expect(toErrorResult(err).result).toMatchObject({ statusCode: 503, headers: { 'retry-after': '1' } })
  })

  it('reads the item a failed condition returns, in plain values (ConditionalCheckFailed with the item)', async () => {
    ddb.on(UpdateCommand).rejects(
      new ConditionalCheckFailedException({
        ...meta,
        message: 'The conditional request failed',
        Item: { pk: { S: 'T#1' }, sk: { S: 'COUNTERS' }, seats: { N: '7' }, tags: { SS: ['a'] } },
      }),
    )

    const outcome = await updateOrCurrent({
      Key: { pk: 'T#1', sk: 'COUNTERS' },
      UpdateExpression: 'SET a = :a',
    })

    expect(outcome).toEqual({ refused: { pk: 'T#1', sk: 'COUNTERS', seats: 7, tags: new Set(['a']) } })
  })

  it('retries unprocessed batch keys with a cap, then fails with a named 503', async () => {
    const keys = [
      { pk: 'T#1', sk: 'A' },
      { pk: 'T#1', sk: 'B' },
    ]
    ddb
      .on(BatchGetCommand)
      .resolvesOnce({ Responses: { lms: [keys[0]!] }, UnprocessedKeys: { lms: { Keys: [keys[1]!] } } })
      .resolvesOnce({ Responses: { lms: [keys[1]!] } })
    expect(await batchGet(keys)).toEqual(keys)
    expect(inputsOf(ddb, BatchGetCommand).map((i) => i.RequestItems?.['lms']?.Keys)).toEqual([
      keys,
      [keys[1]],
    ])

    ddb.reset()
    ddb.on(BatchWriteCommand).resolves({ UnprocessedItems: { lms: [{ DeleteRequest: { Key: keys[0]! } }] } })
    const err: unknown = await batchDelete([keys[0]!]).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(UnprocessedItemsLeft)
    expect(err).toBeInstanceOf(ServiceUnavailableError)
    expect(inputsOf(ddb, BatchWriteCommand)).toHaveLength(BATCH_ATTEMPTS)
  })

  it('reads a failed rate-window condition as a full window', async () => {
    ddb.on(UpdateCommand).rejects(new ConditionalCheckFailedException({ ...meta, message: 'full' }))
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
    ddb.on(GetCommand, { Key: { pk: 'TENANT#acme', sk: 'TENANT' } }).resolves({ Item: tenantItem })
    ddb.on(GetCommand, { Key: { pk: `APIKEY#${key.hash}`, sk: 'APIKEY' } }).resolves({ Item: keyItem })
    ddb.on(UpdateCommand).resolves({ Attributes: { count: 1 } })
    userRead()
  }

  it('answers 503 with Retry-After when the user read is throttled', async () => {
    arrange(() =>
      ddb
        .on(GetCommand, { Key: { pk: `T#${tenant.id}`, sk: 'USER#22222222-2222-4222-8222-222222222222' } })
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
      ddb.on(GetCommand, { Key: { pk: `APIKEY#${key.hash}`, sk: 'APIKEY' } }).resolves({
        Item: { ...keyItem, scopes: ['read', 'write'] },
      })
      ddb.on(TransactWriteCommand).rejects(cancelled(['None', 'None', 'TransactionConflict', 'None']))
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
    expect(inputsOf(ddb, TransactWriteCommand).length).toBeGreaterThan(1)
    expect(res.statusCode).toBe(503)
    expect(res.headers?.['retry-after']).toBe('1')
    expect(JSON.parse(res.body ?? '')).toMatchObject({ data: null, meta: null, error: { code: 503 } })
    expect(res.body).not.toMatch(/Transaction|Conflict/)
  })

  it('answers 500 with a bare message for an unexpected error', async () => {
    arrange(() =>
      ddb
        .on(GetCommand, { Key: { pk: `T#${tenant.id}`, sk: 'USER#22222222-2222-4222-8222-222222222222' } })
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
