/**
 * Handler time per request, in process: the full Middy handler against a "bare" function doing the
 * same work without the stack. For GET /users/{id} the bare function is the same store read and
 * JSON envelope (getUser + toUserResource + ok), so the difference is the middleware chain
 * including its DynamoDB calls (API key, minute window, monthly usage, and the tenant whenever its
 * cache expires). For the public GET /plans (no DynamoDB at all) the difference is the pure
 * middleware chain. Full and bare runs alternate so both see the same machine state.
 */
import { plans } from '../shared/domain/plans/catalog.ts'
import { ok } from '../shared/http/responses.ts'
import type { HttpResult } from '../shared/http/context.ts'
import { getUser } from '../shared/services/users/users-service.ts'
import { runWithDbMetrics } from '../shared/store/core/metrics.ts'
import { toUserResource } from '../functions/users/representation.ts'
import { apiEvent, expectOk, lambdaContext, type ApiRequest, type LambdaHandler } from './invoke.ts'
import type { SeededTenant } from './seed.ts'
import { median, percentile, round } from './stats.ts'

export interface Distribution {
  readonly median: number
  readonly p95: number
  readonly mean: number
  readonly dbCallsPerRequest: number
}

export interface Comparison {
  readonly name: string
  readonly iterations: number
  readonly full: Distribution
  readonly bare: Distribution
  readonly overhead: { readonly median: number; readonly p95: number }
}

interface Sample {
  readonly ms: number
  readonly calls: number
}

async function sample(fn: () => Promise<HttpResult>, req: ApiRequest): Promise<Sample> {
  const t = performance.now()
  const { metrics, done } = runWithDbMetrics(fn)
  const result = await done
  const ms = performance.now() - t
  expectOk(req, result)
  return { ms, calls: metrics.calls.length }
}

function distribution(samples: readonly Sample[]): Distribution {
  const ms = samples.map((s) => s.ms)
  return {
    median: round(median(ms)),
    p95: round(percentile(ms, 95)),
    mean: round(ms.reduce((a, b) => a + b, 0) / ms.length),
    dbCallsPerRequest: round(samples.reduce((a, s) => a + s.calls, 0) / samples.length),
  }
}

async function compare(
  name: string,
  iterations: number,
  warmUps: number,
  req: ApiRequest,
  full: LambdaHandler,
  bare: () => Promise<HttpResult>,
): Promise<Comparison> {
  const runFull = () => {
    const event = apiEvent(req)
    return full(event, lambdaContext('lms-bench', event.requestContext.requestId))
  }
  for (let i = 0; i < warmUps; i++) {
    await sample(runFull, req)
    await sample(bare, req)
  }
  const fullSamples: Sample[] = []
  const bareSamples: Sample[] = []
  for (let i = 0; i < iterations; i++) {
    fullSamples.push(await sample(runFull, req))
    bareSamples.push(await sample(bare, req))
  }
  const f = distribution(fullSamples)
  const b = distribution(bareSamples)
  return {
    name,
    iterations,
    full: f,
    bare: b,
    overhead: { median: round(f.median - b.median), p95: round(f.p95 - b.p95) },
  }
}

export async function runHandlerTimes(
  handlers: { readonly users: LambdaHandler; readonly plans: LambdaHandler },
  seeded: SeededTenant,
  iterations: { readonly users: number; readonly plans: number },
): Promise<Comparison[]> {
  const user = seeded.users[Math.floor(seeded.users.length / 3)]
  if (!user) throw new Error('no users seeded')
  const userReq: ApiRequest = {
    method: 'GET',
    url: `/api/v1/users/${user.id}`,
    host: seeded.host,
    apiKey: seeded.timingKey,
  }
  const plansReq: ApiRequest = { method: 'GET', url: '/api/v1/plans', host: seeded.host }
  return [
    await compare(
      'GET /api/v1/users/{id}: full Middy handler vs getUser + envelope',
      iterations.users,
      30,
      userReq,
      handlers.users,
      async () => ok(toUserResource(await getUser(seeded.tenant, user.id))),
    ),
    await compare(
      'GET /api/v1/plans (no DynamoDB): full Middy handler vs serializing the plans array',
      iterations.plans,
      100,
      plansReq,
      handlers.plans,
      async () => ok(plans),
    ),
  ]
}
