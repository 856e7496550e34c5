/**
 * The kept answer of a keyed POST with an Idempotency-Key, decided around the handler: a 5xx is not
 * kept (the claim is given back so a retry runs again), a 4xx is. The store is a mock: the fault
 * is the handler's own.
 */
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb'
import { beforeEach, describe, expect, it } from 'vitest'
import { NotFoundError, ServiceUnavailableError } from '../../../shared/domain/errors.ts'
import type { Tenant } from '../../../shared/domain/tenants/tenant.ts'
import type { HttpEvent, HttpResult, LmsContext } from '../../../shared/http/context.ts'
import { idempotentHandle } from '../../../shared/http/idempotent-handle.ts'
import { allCalls, inputsOf, mockDocuments } from '../../helpers/mock-documents.ts'

const ddb = mockDocuments()
const tenant = { id: '11111111-1111-4111-8111-111111111111' } as Tenant

const event = {
  rawPath: '/api/v1/users',
  headers: { 'idempotency-key': 'retry-1' },
  body: { email: 'ada@example.com' },
  requestContext: { http: { method: 'POST' } },
} as unknown as HttpEvent
const context = { lms: { tenant } } as unknown as LmsContext

const ops = () => allCalls(ddb).map((c) => c.op)

describe('idempotentHandle: what a first request keeps', () => {
  beforeEach(() => {
    ddb.reset()
    ddb.on(GetCommand).resolves({})
    ddb.on(PutCommand).resolves({})
    ddb.on(UpdateCommand).resolves({})
    ddb.on(DeleteCommand).resolves({})
  })

  it('gives the key back when the handler fails unexpectedly (500), keeping nothing', async () => {
    const failing = idempotentHandle(() => Promise.reject(new Error('store lost')))

    await expect(failing(event, context)).rejects.toThrow('store lost')

    expect(ops()).toEqual(['GetItem', 'PutItem', 'DeleteItem'])
    const [claim] = inputsOf(ddb, PutCommand)
    const [release] = inputsOf(ddb, DeleteCommand)
    expect(release?.Key).toEqual({ pk: claim?.Item?.pk, sk: claim?.Item?.sk })
    expect(Object.values(release?.ExpressionAttributeValues ?? {})).toContain(claim?.Item?.token)
  })

  it('gives the key back on a 503, thrown or answered', async () => {
    const thrown = idempotentHandle(() => Promise.reject(new ServiceUnavailableError()))
    const answered = idempotentHandle(() => Promise.resolve<HttpResult>({ statusCode: 503, body: '{}' }))

    await expect(thrown(event, context)).rejects.toBeInstanceOf(ServiceUnavailableError)
    await answered(event, context)

    expect(ops()).toEqual(['GetItem', 'PutItem', 'DeleteItem', 'GetItem', 'PutItem', 'DeleteItem'])
  })

  it('keeps a thrown 4xx as the error envelope answers it', async () => {
    const notFound = idempotentHandle(() => Promise.reject(new NotFoundError('course')))

    await expect(notFound(event, context)).rejects.toBeInstanceOf(NotFoundError)

    expect(ops()).toEqual(['GetItem', 'PutItem', 'UpdateItem'])
    const [kept] = inputsOf(ddb, UpdateCommand)
    const response = Object.values(kept?.ExpressionAttributeValues ?? {}).find(
      (v) => typeof v === 'object' && v !== null && 'status_code' in v,
    ) as { status_code: number; body: string }
    expect(response.status_code).toBe(404)
    expect(JSON.parse(response.body).error.message).toBe('Course not found')
  })
})
