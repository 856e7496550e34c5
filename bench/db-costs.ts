/**
 * What each scenario costs in DynamoDB: the calls one request makes, in order, with the capacity
 * each consumed (as DynamoDB Local reports it), and totals. Before each scenario a GET by id warms
 * the container and the tenant cache (the documented steady state), so the measured request reads
 * no tenant unless the cache expired.
 */
import type { User } from '../shared/domain/users/user.ts'
import type { DbCall } from '../shared/store/core/metrics.ts'
import type { SeededTenant } from './seed.ts'
import { envelopeOf, expectOk, invoke, type ApiRequest, type LambdaHandler } from './invoke.ts'
import { installSdkProbe, sequentialRoundTrips, withSdkProbe } from './sdk-probe.ts'
import { round } from './stats.ts'

export interface LabelledCall extends DbCall {
  readonly label: string
}

export interface ScenarioResult {
  readonly name: string
  readonly request: string
  readonly status: number
  readonly items: number | null
  readonly metaTotal: number | null
  /** What meta.total should be, counted from the seeded users (a check on counters and seeding). */
  readonly expectedTotal: number | null
  readonly ms: number
  /** DynamoDB round trips the request waited for one after another (overlapping calls count once). */
  readonly sequentialRoundTrips: number
  readonly calls: readonly LabelledCall[]
  readonly totals: { readonly calls: number; readonly rcu: number; readonly wcu: number }
  readonly handlerTotals: { readonly calls: number; readonly rcu: number; readonly wcu: number }
}

/**
 * Names the calls of an authenticated request: [tenant GetItem if not cached], API key GetItem,
 * then the minute window's and the month's UpdateItems (in that order); everything else is the
 * route handler's. On a GET the handler's reads overlap the month's count, so they may be
 * recorded before it; a GET handler makes no UpdateItem, so the split is unambiguous for the
 * scenarios here (and a write's handler runs only after both counts).
 */
export function labelCalls(calls: readonly DbCall[]): LabelledCall[] {
  const firstUpdate = calls.findIndex((c) => c.op === 'UpdateItem')
  if (firstUpdate < 0) return calls.map((c) => ({ ...c, label: 'handler' }))
  const gets = calls.slice(0, firstUpdate)
  const preLabels = gets.length === 2 ? ['mw: tenant (cache miss)', 'mw: API key'] : ['mw: API key']
  const counters = ['mw: rate limit (minute)', 'mw: monthly usage']
  let updates = 0
  return calls.map((c, i) => {
    if (i < firstUpdate) return { ...c, label: preLabels[i] ?? 'mw: ?' }
    if (c.op === 'UpdateItem' && updates < counters.length) return { ...c, label: counters[updates++] ?? '' }
    return { ...c, label: 'handler' }
  })
}

const sum = (calls: readonly DbCall[]) => ({
  calls: calls.length,
  rcu: round(calls.reduce((a, c) => a + c.rcu, 0)),
  wcu: round(calls.reduce((a, c) => a + c.wcu, 0)),
})

export async function runScenarios(handler: LambdaHandler, seeded: SeededTenant): Promise<ScenarioResult[]> {
  await installSdkProbe()
  const byId = seeded.users[Math.floor(seeded.users.length / 2)]
  if (!byId) throw new Error('no users seeded')
  const all = (): boolean => true
  const scenarios: [string, string, ((u: User) => boolean) | null][] = [
    ['GET user by id (warm)', `/api/v1/users/${byId.id}`, null],
    ['first page of 50', '/api/v1/users?per_page=50', all],
    [
      'filtered: role=instructor & is_active=true',
      '/api/v1/users?role=instructor&is_active=true',
      (u) => u.role === 'instructor' && u.isActive,
    ],
    ['filtered: user_type=partner', '/api/v1/users?user_type=partner', (u) => u.userType === 'partner'],
    ['page 100 of 50', '/api/v1/users?per_page=50&page=100', all],
  ]
  const base = { method: 'GET', host: seeded.host, apiKey: seeded.scenarioKey } as const
  const warmUp: ApiRequest = { ...base, url: `/api/v1/users/${byId.id}` }
  const out: ScenarioResult[] = []
  for (const [name, url, matches] of scenarios) {
    expectOk(warmUp, (await invoke(handler, warmUp)).result)
    const req: ApiRequest = { ...base, url }
    const { value, attempts } = await withSdkProbe(() => invoke(handler, req))
    const { result, calls, ms } = value
    expectOk(req, result)
    const body = envelopeOf(result)
    const meta = body.meta as { total?: number } | null
    const labelled = labelCalls(calls)
    out.push({
      name,
      request: `GET ${url}`,
      status: result.statusCode ?? 0,
      items: Array.isArray(body.data) ? body.data.length : null,
      metaTotal: meta?.total ?? null,
      expectedTotal: matches ? seeded.users.filter(matches).length : null,
      ms: round(ms, 2),
      sequentialRoundTrips: sequentialRoundTrips(attempts),
      calls: labelled,
      totals: sum(labelled),
      handlerTotals: sum(labelled.filter((c) => c.label === 'handler')),
    })
  }
  return out
}

export interface TargetResult {
  readonly target: string
  readonly actual: string
  readonly met: boolean
}

export function checkTargets(scenarios: readonly ScenarioResult[]): TargetResult[] {
  const byId = scenarios.find((s) => s.name.startsWith('GET user by id'))
  const firstPage = scenarios.find((s) => s.name === 'first page of 50')
  const overhead = byId?.calls.filter((c) => c.label !== 'handler') ?? []
  const overheadRcu = round(overhead.reduce((a, c) => a + c.rcu, 0))
  const overheadWcu = round(overhead.reduce((a, c) => a + c.wcu, 0))
  return [
    {
      target: 'GET /users/{id} (warm) <= 3 sequential DynamoDB round trips',
      actual: `${byId?.sequentialRoundTrips ?? '?'} sequential (${byId?.totals.calls ?? '?'} calls)`,
      met: byId !== undefined && byId.sequentialRoundTrips <= 3,
    },
    {
      target: 'GET /users/{id} (warm) overhead (auth + limits) <= 1 RCU + 2 WCU',
      actual: `${overheadRcu} RCU + ${overheadWcu} WCU`,
      met: byId !== undefined && overheadRcu <= 1 && overheadWcu <= 2,
    },
    {
      target: 'first page of 50 with meta.total <= 10 RCU (whole request)',
      actual: `${firstPage?.totals.rcu ?? '?'} RCU (handler ${firstPage?.handlerTotals.rcu ?? '?'}), meta.total=${firstPage?.metaTotal ?? '?'}`,
      met: firstPage !== undefined && firstPage.metaTotal !== null && firstPage.totals.rcu <= 10,
    },
  ]
}
