/**
 * Outermost middleware: starts the request's state and, on the way out, adds the request's
 * headers, writes one structured log line and counts the request (an EMF metric line, by route
 * and status). The log line holds ids (API Gateway's request id, the Lambda's, the function's
 * name), whether the container was cold, route, status, timing and DynamoDB cost; never a key, a
 * body or personal data.
 */
import { randomUUID } from 'node:crypto'
import { config } from '../config.ts'
import { errorFields } from '../log.ts'
import { countRequest } from '../metrics/app-metrics.ts'
import { routeByKey } from '../routes.ts'
import { currentDbMetrics, summarize } from '../store/core/metrics.ts'
import type { MiddyRequest } from './context.ts'
import { corsHeaders } from './cors.ts'
import { deprecationHeaders } from './deprecation.ts'

function finish(request: MiddyRequest, error?: unknown): void {
  const state = request.context.lms
  const response = request.response
  if (response) {
    response.headers = {
      ...response.headers,
      ...state.headers,
      ...deprecationHeaders(state.route),
      ...(state.route?.cors ? corsHeaders(request.event) : {}),
      'x-request-id': state.requestId,
    }
  }
  if (config.logLevel === 'silent') return
  const db = currentDbMetrics()
  const status = response?.statusCode ?? 500
  const line = {
    level: status >= 500 ? 'error' : 'info',
    msg: 'request',
    requestId: state.requestId,
    lambdaRequestId: request.context.awsRequestId,
    function: request.context.functionName,
    coldStart: state.coldStart,
    route: request.event.routeKey,
    method: request.event.requestContext?.http?.method,
    path: request.event.rawPath,
    tenantId: state.tenant?.id,
    keyId: state.keyId,
    status: response?.statusCode,
    durationMs: Math.round((performance.now() - state.startedAt) * 100) / 100,
    ...(db ? { db: summarize(db) } : {}),
    ...(status >= 500 ? failure(error) : {}),
  }
  process.stdout.write(`${JSON.stringify(line)}\n`)
  countRequest(request.event.routeKey, status, {
    requestId: state.requestId,
    ...(state.tenant ? { tenantId: state.tenant.id } : {}),
  })
}

/** True for the first request of this container only: every stack of a route group shares it. */
let coldStart = true
function takeColdStart(): boolean {
  const cold = coldStart
  coldStart = false
  return cold
}

/** A failed request's error by name, with the AWS request id of the call that failed, if any. */
function failure(error: unknown) {
  if (!(error instanceof Error)) return {}
  const { errorName, causeName, awsRequestId } = errorFields(error)
  return { errorName, ...(causeName ? { causeName } : {}), ...(awsRequestId ? { awsRequestId } : {}) }
}

export function requestLog() {
  return {
    before: function requestLogBefore(request: MiddyRequest): void {
      request.context.lms = {
        requestId: request.event.requestContext?.requestId ?? randomUUID(),
        startedAt: performance.now(),
        coldStart: takeColdStart(),
        route: routeByKey(request.event.routeKey),
        tenant: undefined,
        actor: undefined,
        keyId: undefined,
        keyPrefix: undefined,
        minute: undefined,
        monthCount: undefined,
        headers: {},
      }
    },
    after: function requestLogAfter(request: MiddyRequest): void {
      finish(request)
    },
    onError: function requestLogOnError(request: MiddyRequest): void {
      finish(request, request.error)
    },
  }
}
