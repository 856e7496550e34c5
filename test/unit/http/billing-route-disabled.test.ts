/**
 * Where no platform secret is configured the billing route is not enabled: every request is 401,
 * answered before anything is read (no store is reachable from the unit project).
 */
import type { Context } from 'aws-lambda'
import { describe, expect, it } from 'vitest'
import { handler } from '../../../functions/billing/handler.ts'
import { config } from '../../../shared/config.ts'
import type { HttpEvent } from '../../../shared/http/context.ts'

const event = (authorization?: string) =>
  ({
    version: '2.0',
    routeKey: 'GET /api/v1/billing/metrics',
    rawPath: '/api/v1/billing/metrics',
    rawQueryString: 'tenantId=9b2f3f5e-1111-4222-8333-444455556666',
    headers: { host: 'billing.localhost', ...(authorization ? { authorization } : {}) },
    queryStringParameters: { tenantId: '9b2f3f5e-1111-4222-8333-444455556666' },
    requestContext: {
      http: { method: 'GET', path: '/api/v1/billing/metrics', sourceIp: '127.0.0.1' },
      requestId: 'r1',
    },
    isBase64Encoded: false,
  }) as unknown as HttpEvent

describe('Billing metrics on an environment without the platform secret', () => {
  it('answers 401 to every request, with or without a Bearer token', async () => {
    expect(config.platformMetricsSecret).toBeUndefined()
    expect(config.platformMetricsSecretArn).toBeUndefined()
    for (const authorization of [undefined, 'Bearer ', 'Bearer anything', 'Bearer undefined']) {
      const res = await handler(event(authorization), {} as Context)
      expect(res.statusCode, String(authorization)).toBe(401)
      expect(JSON.parse(res.body ?? '{}')).toMatchObject({
        data: null,
        error: { message: 'Invalid or missing platform secret' },
      })
    }
  })
})
