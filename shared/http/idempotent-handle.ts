/**
 * A keyed POST with an `Idempotency-Key` (decision 0038), around its handler and inside the
 * metering (metered-handle.ts): a replay counts against the rate limits like any request, but
 * runs no handler, so it writes and meters nothing as a write. The first request's answer is kept
 * when it is a 2xx or 4xx, thrown errors included (as the error envelope will answer them); a 5xx
 * gives the key back, so a retry runs again. Without the header, the handler runs as before.
 */
import { isKept, idempotencyKeyOf, requestHash, type KeptResponse } from '../domain/idempotency.ts'
import type { TenantContext } from '../domain/tenants/tenant.ts'
import { keepAnswer, releaseKey, startIdempotent } from '../services/idempotency/idempotency-service.ts'
import { established, type HttpEvent, type HttpResult, type LmsContext } from './context.ts'
import { toErrorResult } from './errors.ts'

type Handle = (event: HttpEvent, context: LmsContext) => Promise<HttpResult>

const keptOf = (result: HttpResult): KeptResponse => ({
  statusCode: result.statusCode ?? 200,
  headers: Object.fromEntries(Object.entries(result.headers ?? {}).map(([k, v]) => [k, String(v)])),
  body: result.body,
})

const replayed = (kept: KeptResponse): HttpResult => ({
  statusCode: kept.statusCode,
  headers: { ...kept.headers, 'idempotent-replayed': 'true' },
  ...(kept.body === undefined ? {} : { body: kept.body }),
})

/** Keeps the answer, or gives the key back when there is none to keep. */
async function settle(tenant: TenantContext, key: string, token: string, answer: HttpResult | undefined) {
  if (answer && isKept(answer.statusCode ?? 200)) await keepAnswer(tenant, key, token, keptOf(answer))
  else await releaseKey(tenant, key, token)
}

export function idempotentHandle(handle: Handle): Handle {
  return async (event, context) => {
    const key = idempotencyKeyOf(event.headers?.['idempotency-key'])
    if (key === undefined) return handle(event, context)
    const tenant = established(context.lms.tenant, 'The tenant')
    // The body as the JSON parser left it: compared as parsed JSON, not as the bytes sent.
    const hash = requestHash(event.requestContext.http.method, event.rawPath, event.body as unknown)
    const start = await startIdempotent(tenant, key, hash)
    if (start.kind === 'replay') return replayed(start.response)
    let answer: HttpResult
    try {
      answer = await handle(event, context)
    } catch (err) {
      const { result, unexpected } = toErrorResult(err)
      // The handler's error is the answer; a failure to settle leaves the claim to its lease.
      await settle(tenant, key, start.token, unexpected ? undefined : result).catch(() => undefined)
      throw err
    }
    await settle(tenant, key, start.token, answer)
    return answer
  }
}
