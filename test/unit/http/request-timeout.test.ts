import type { Context } from 'aws-lambda'
import { describe, expect, it } from 'vitest'
import { RequestTimedOutError, ServiceUnavailableError } from '../../../shared/domain/errors.ts'
import { stack } from '../../../shared/http/base-stack.ts'
import type { HttpEvent, LmsContext } from '../../../shared/http/context.ts'
import { toErrorResult } from '../../../shared/http/errors.ts'

const event = {
  version: '2.0',
  routeKey: 'DELETE /api/v1/enrollments/{id}',
  rawPath: '/api/v1/enrollments/e1',
  rawQueryString: '',
  headers: { host: 'acme.localhost' },
  requestContext: { requestId: 'r1', http: { method: 'DELETE', sourceIp: '203.0.113.9' } },
  isBase64Encoded: false,
} as unknown as HttpEvent

/** A function with `ms` left to run. */
const withTimeLeft = (ms: number) =>
  ({ getRemainingTimeInMillis: () => ms }) as unknown as Context & LmsContext

describe('Functions: a request out of time', () => {
  it('answers 503 with Retry-After in the envelope, never 500, when the handler outlives its function', async () => {
    // A handler still waiting on the store when the function's time runs out.
    const handle = () => new Promise<never>(() => undefined)

    const res = await stack([], handle)(event, withTimeLeft(200))

    expect(res.statusCode).toBe(503)
    expect(res.headers?.['retry-after']).toBe('2')
    expect(JSON.parse(res.body ?? '')).toEqual({
      data: null,
      meta: null,
      error: { code: 503, message: 'The service is temporarily unavailable; retry shortly' },
    })
  })

  it('maps both typed unavailabilities in the one place, each with its Retry-After', () => {
    expect(toErrorResult(new RequestTimedOutError()).result).toMatchObject({
      statusCode: 503,
      headers: { 'retry-after': '2' },
    })
    expect(toErrorResult(new ServiceUnavailableError()).result).toMatchObject({
      statusCode: 503,
      headers: { 'retry-after': '1' },
    })
    expect(toErrorResult(new ServiceUnavailableError({ retryAfterSeconds: 5 })).result.headers).toMatchObject(
      {
        'retry-after': '5',
      },
    )
  })
})
