/**
 * The reports bench's steps (bench/reports.ts starts the stores and sets the environment first):
 * seed the tenant (users and enrollments in parallel BatchWriteItem calls of the items the product
 * writes), then each report's pages through the reports handler, counting DynamoDB calls.
 */
import { handler } from '../functions/reports/handler.ts'
import type { Enrollment } from '../shared/domain/enrollments/enrollment.ts'
import { createApiKey, createTenant } from '../shared/services/tenants/tenants-service.ts'
import { seedEnrollments } from '../shared/store/enrollments/enrollments-seed.ts'
import { runWithDbMetrics, summarize } from '../shared/store/core/metrics.ts'
import { seedUsers } from '../shared/store/users/users-store.ts'
import { seedLatestItems } from '../shared/store/reports/activity-latest-items.ts'
import { batchPut } from '../shared/store/core/db.ts'
import { config } from '../shared/config.ts'
import { summarizeCalls, type CallSummary } from './call-summary.ts'
import { envelopeOf, expectOk, invoke, type ApiRequest } from './invoke.ts'
import { CATEGORIES, makeEnrollments, reportCourses, withRecentSignIns } from './report-data.ts'
import { installSdkProbe, sequentialRoundTrips, withSdkProbe } from './sdk-probe.ts'
import { makeUsers } from './seed.ts'
import { round } from './stats.ts'
import type { Figures } from './results-file.ts'

export interface ReportsBenchOptions {
  readonly users: number
  readonly perUser: number
  readonly courses: number
  readonly seedConcurrency: number
  readonly targetRcu: number
  readonly now: number
  readonly day: number
  readonly progress: (step: string) => void
  /** Called after each page with the results so far. */
  readonly onPage?: (partial: ReportsBenchResult) => Promise<void>
}

export interface SeedFigures {
  readonly users: number
  readonly courses: number
  readonly enrollments: number
  readonly items: number
  readonly updates: number
  readonly concurrency: number
  readonly coursesMs: number
  readonly usersMs: number
  readonly enrollmentsMs: number
  readonly itemsPerSecond: number
  readonly enrollmentsWcu: number
  readonly byStatus: Record<string, number>
}

export interface PageResult {
  readonly name: string
  readonly request: string
  readonly status: number
  readonly items: number | null
  readonly metaTotal: number | null
  readonly ms: number
  readonly sequentialRoundTrips: number
  readonly cost: CallSummary
  readonly withinTarget: boolean
}

export interface ReportsBenchResult {
  readonly seed: SeedFigures
  readonly targetRcu: number
  readonly pages: readonly PageResult[]
}

const iso = (ms: number) => new Date(ms).toISOString()

function countBy<T>(list: readonly T[], of: (t: T) => string): Record<string, number> {
  const out: Record<string, number> = {}
  for (const t of list) out[of(t)] = (out[of(t)] ?? 0) + 1
  return out
}

export async function runReportsBench(o: ReportsBenchOptions): Promise<ReportsBenchResult> {
  const tenant = await createTenant({
    slug: `reports-${Date.now().toString(36)}`,
    plan: 'growth',
    name: 'Reports',
  })
  const key = (await createApiKey(tenant, ['read'])).key
  o.progress(`creating ${o.courses} courses through the courses service`)
  let t = performance.now()
  const courses = await reportCourses(tenant, o.courses)
  const coursesMs = performance.now() - t

  o.progress(`seeding ${o.users} users (${o.seedConcurrency} BatchWriteItem calls in flight)`)
  const users = withRecentSignIns(makeUsers(o.users), o.now)
  t = performance.now()
  await seedUsers(tenant, users, o.seedConcurrency)
  const usersMs = performance.now() - t

  const enrollments: Enrollment[] = makeEnrollments(users, courses, o.perUser, o.now)
  o.progress(
    `seeding ${enrollments.length} enrollments (${o.seedConcurrency} BatchWriteItem calls in flight)`,
  )
  t = performance.now()
  const { metrics, done } = runWithDbMetrics(() => seedEnrollments(tenant, enrollments, o.seedConcurrency))
  const writes = await done
  // The users' latest activity and its histogram, as the sign-ins and enrollment writes keep them.
  await batchPut(seedLatestItems(tenant, users, enrollments), o.seedConcurrency)
  const enrollmentsMs = performance.now() - t

  const seed: SeedFigures = {
    users: users.length,
    courses: courses.length,
    enrollments: enrollments.length,
    items: writes.puts.length,
    updates: writes.updates.length,
    concurrency: o.seedConcurrency,
    coursesMs: Math.round(coursesMs),
    usersMs: Math.round(usersMs),
    enrollmentsMs: Math.round(enrollmentsMs),
    itemsPerSecond: Math.round((writes.puts.length / enrollmentsMs) * 1000),
    enrollmentsWcu: round(summarize(metrics).wcu),
    byStatus: countBy(enrollments, (e) => e.status),
  }

  const course = courses.find((c) => c.course.status === 'published')?.course.id ?? ''
  const since = (days: number) => iso(o.now - days * o.day)
  // Each report's default first page first, then filtered pages, the costliest last.
  const pages: [string, string][] = [
    ['completions: default', '/api/v1/reports/completions'],
    ['enrollments: default', '/api/v1/reports/enrollments'],
    ['compliance: default', '/api/v1/reports/compliance'],
    ['users/activity: default', '/api/v1/reports/users/activity'],
    ['courses/performance: default', '/api/v1/reports/courses/performance'],
    ['completions: one course', `/api/v1/reports/completions?course_id=${course}`],
    ['enrollments: status=active', '/api/v1/reports/enrollments?status=active'],
    ['enrollments: one course', `/api/v1/reports/enrollments?course_id=${course}`],
    ['compliance: one course', `/api/v1/reports/compliance?course_id=${course}`],
    ['compliance: status=expiring_soon', '/api/v1/reports/compliance?status=expiring_soon'],
    ['users/activity: user_type=partner', '/api/v1/reports/users/activity?user_type=partner'],
    ['courses/performance: category', `/api/v1/reports/courses/performance?category=${CATEGORIES[0]}`],
    ['enrollments: last 30 days', `/api/v1/reports/enrollments?enrolled_after=${since(30)}`],
    [
      'completions: last 90 days, passed',
      `/api/v1/reports/completions?completed_after=${since(90)}&pass_fail=pass`,
    ],
    ['users/activity: include_inactive', '/api/v1/reports/users/activity?include_inactive=true'],
    ['compliance: status=non_compliant', '/api/v1/reports/compliance?status=non_compliant'],
    [
      'courses/performance: last 90 days',
      `/api/v1/reports/courses/performance?period_start=${since(90)}&period_end=${iso(o.now)}`,
    ],
    ['completions: sort by score', '/api/v1/reports/completions?sort_by=score'],
  ]
  await installSdkProbe()
  const base = { method: 'GET', host: `${tenant.slug}.${config.serviceHost}`, apiKey: key } as const
  // Warms the handler's modules and the tenant cache; not counted.
  const warm: ApiRequest = { ...base, url: '/api/v1/reports/courses/performance?per_page=1' }
  expectOk(warm, (await invoke(handler, warm)).result)
  const out: PageResult[] = []
  for (const [name, url] of pages) {
    o.progress(name)
    const req: ApiRequest = { ...base, url }
    const { value, attempts } = await withSdkProbe(() => invoke(handler, req))
    const body = envelopeOf(value.result)
    const meta = body.meta as { total?: number } | null
    const { summary } = summarizeCalls(value.calls, attempts)
    const status = value.result.statusCode ?? 0
    const page: PageResult = {
      name,
      request: `GET ${url}`,
      status,
      items: Array.isArray(body.data) ? body.data.length : null,
      metaTotal: meta?.total ?? null,
      ms: round(value.ms, 1),
      sequentialRoundTrips: sequentialRoundTrips(attempts),
      cost: summary,
      withinTarget: status === 200 && summary.totals.rcu <= o.targetRcu,
    }
    out.push(page)
    // Each page as it is measured: a long run that is stopped still leaves its figures.
    o.progress(`  ${pageLine(page)}${status === 200 ? '' : ` ${JSON.stringify(body.error)}`}`)
    await o.onPage?.({ seed, targetRcu: o.targetRcu, pages: out })
  }
  return { seed, targetRcu: o.targetRcu, pages: out }
}

const pad = (s: string | number, n: number) => String(s).padEnd(n)
const lpad = (s: string | number, n: number) => String(s).padStart(n)

function pageLine(p: PageResult): string {
  return (
    `${pad(p.name, 40)} ${lpad(p.items ?? '-', 5)} ${lpad(p.metaTotal ?? '-', 7)} ${lpad(p.cost.totals.calls, 5)} ` +
    `${lpad(p.cost.totals.rcu, 9)} ${lpad(p.cost.handler.rcu, 9)} ${lpad(p.sequentialRoundTrips, 4)} ` +
    `${lpad(round(p.ms, 0), 8)}  ${p.status !== 200 ? `HTTP ${p.status}` : p.withinTarget ? 'met' : 'NOT MET'}` +
    `  (${p.cost.byOp.map((b) => `${b.op} x${b.calls} ${b.rcu}`).join(', ')})`
  )
}

export function formatReports(r: ReportsBenchResult): string[] {
  const s = r.seed
  const lines = [
    'Reports',
    `seed (not counted): ${s.courses} courses through the service in ${round(s.coursesMs / 1000, 1)} s; ` +
      `${s.users} users in ${round(s.usersMs / 1000, 1)} s; ${s.enrollments} enrollments ` +
      `(${Object.entries(s.byStatus)
        .map(([k, n]) => `${k} ${n}`)
        .join(', ')}) as ${s.items} items + ${s.updates} updates in ${round(s.enrollmentsMs / 1000, 1)} s ` +
      `(${s.itemsPerSecond} items/s, ${s.concurrency} BatchWriteItem calls in flight, ${s.enrollmentsWcu} WCU)`,
    '',
    `${pad('page (per_page 50)', 40)} ${lpad('rows', 5)} ${lpad('total', 7)} ${lpad('calls', 5)} ${lpad('RCU', 9)} ` +
      `${lpad('handler', 9)} ${lpad('seq', 4)} ${lpad('ms', 8)}  target <= ${r.targetRcu} RCU`,
  ]
  for (const p of r.pages) lines.push(pageLine(p))
  const met = r.pages.filter((p) => p.withinTarget).length
  lines.push('', `${met} of ${r.pages.length} pages within ${r.targetRcu} RCU`)
  return lines
}

/** The figures kept in bench/results.json: the seed's size and speed, each page's calls and capacity. */
export function reportFigures(r: ReportsBenchResult): Figures {
  const f: Figures = {
    'seed.users': r.seed.users,
    'seed.enrollments': r.seed.enrollments,
    'seed.items': r.seed.items,
    'seed.enrollmentsMs': r.seed.enrollmentsMs,
    'seed.itemsPerSecond': r.seed.itemsPerSecond,
  }
  for (const p of r.pages) {
    f[`${p.name}.status`] = p.status
    f[`${p.name}.items`] = p.items ?? -1
    f[`${p.name}.total`] = p.metaTotal ?? -1
    f[`${p.name}.calls`] = p.cost.totals.calls
    f[`${p.name}.rcu`] = p.cost.totals.rcu
    f[`${p.name}.handlerRcu`] = p.cost.handler.rcu
    f[`${p.name}.sequentialRoundTrips`] = p.sequentialRoundTrips
    f[`${p.name}.ms`] = p.ms
    f[`${p.name}.withinTarget`] = p.withinTarget
  }
  f.pagesWithinTarget = r.pages.filter((p) => p.withinTarget).length
  f.pages = r.pages.length
  return f
}
