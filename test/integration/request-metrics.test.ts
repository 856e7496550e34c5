/**
 * What one API request writes to its function's log (shared/http/request-log.ts): the request
 * line, which names the function, the cold start and the Lambda's request id beside API Gateway's,
 * and an EMF line that CloudWatch turns into the Requests metric by route and status. The users
 * route group runs in-process against the test stack's store, its stdout captured.
 */
import { describe, expect, it, vi } from 'vitest'
import { handler } from '../../functions/users/handler.ts'
import { httpEvent, lambdaContext } from '../../local/lambda-event.ts'
import { captureStdout } from '../helpers/stdout-lines.ts'
import { newTenant } from '../helpers/tenants.ts'

// The test stack runs silent; these tests read the lines a deployed function writes.
vi.mock('../../shared/config.ts', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../shared/config.ts')>()
  return { ...actual, config: { ...actual.config, logLevel: 'info', metricsNamespace: 'lms/test' } }
})

const stdout = captureStdout()
const { jsonLines } = stdout

/** One request to this process's users Lambda, as API Gateway would invoke it. */
async function request(host: string, url: string, key: string, lambdaRequestId: string) {
  const { event } = httpEvent({
    method: 'GET',
    url,
    headers: { host, authorization: `Bearer ${key}` },
    sourceIp: '203.0.113.9',
    protocol: 'HTTP/1.1',
    apiId: 'test',
  })
  const result = await handler(event, lambdaContext('lms-users', lambdaRequestId))
  return { status: result.statusCode, apiRequestId: event.requestContext.requestId }
}

describe('Request log and metrics: one request', () => {
  it('logs the function, cold start and Lambda request id, and counts the request by route and status', async () => {
    // Prepare
    const t = await newTenant()
    const host = `${t.slug}.localhost`
    stdout.clear()

    // Act: the container's first request, a second one, and one refused
    const first = await request(host, '/api/v1/users', t.adminKey, 'lambda-req-1')
    const second = await request(
      host,
      '/api/v1/users/00000000-0000-4000-8000-000000000000',
      t.adminKey,
      'lambda-req-2',
    )
    const refused = await request(host, '/api/v1/users', 'lms_live_not-a-key', 'lambda-req-3')

    // Assess: the request lines keep their fields and gain the new ones
    expect([first.status, second.status, refused.status]).toEqual([200, 404, 401])
    const requests = jsonLines().filter((l) => l.msg === 'request')
    expect(requests).toHaveLength(3)
    expect(requests[0]).toMatchObject({
      level: 'info',
      requestId: first.apiRequestId,
      lambdaRequestId: 'lambda-req-1',
      function: 'lms-users',
      coldStart: true,
      route: 'GET /api/v1/users',
      method: 'GET',
      path: '/api/v1/users',
      tenantId: t.tenant.id,
      status: 200,
    })
    expect(requests[0]?.durationMs).toEqual(expect.any(Number))
    expect(requests[1]).toMatchObject({ lambdaRequestId: 'lambda-req-2', coldStart: false, status: 404 })

    // Assess: one EMF line per request, its route and status as dimensions
    const metrics = jsonLines().filter((l) => '_aws' in l)
    expect(metrics).toHaveLength(3)
    expect(metrics[0]).toMatchObject({
      _aws: {
        CloudWatchMetrics: [
          {
            Namespace: 'lms/test',
            Dimensions: [['Route', 'Status']],
            Metrics: [{ Name: 'Requests', Unit: 'Count' }],
          },
        ],
      },
      Route: 'GET /api/v1/users',
      Status: '200',
      Requests: 1,
      requestId: first.apiRequestId,
      tenantId: t.tenant.id,
    })
    expect(metrics.map((m) => [m.Route, m.Status])).toEqual([
      ['GET /api/v1/users', '200'],
      ['GET /api/v1/users/{id}', '404'],
      ['GET /api/v1/users', '401'],
    ])
  })
})
