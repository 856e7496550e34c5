/**
 * Enrollments: bulk enrollment through the real enrollments Lambda handler (500 rows into one
 * course, 500 rows over ten courses), then the transcript of a learner with 500 enrollments
 * through the users handler (JSON and CSV). Courses are made and published through the courses
 * service first, and some of the learner's enrollments completed through the learner service:
 * none of that is counted. Before each measured request a GET by id warms the tenant cache, which
 * every handler of the process shares, as db-costs.ts does.
 */
import type { User } from '../shared/domain/users/user.ts'
import { ROWS_PER_TRANSACTION } from '../shared/services/enrollments/enrollment-engine.ts'
import { recordActivity } from '../shared/services/enrollments/learner-service.ts'
import { dynamo, tableName } from '../local/sdk-clients.ts'
import { runWithDbMetrics } from '../shared/store/core/metrics.ts'
import { summarizeCalls, type CallSummary, type Cost } from './call-summary.ts'
import { mapLimit, publishedCourses, type CourseFixture } from './course-fixtures.ts'
import type { LabelledCall } from './db-costs.ts'
import { envelopeOf, expectOk, invoke, type ApiRequest, type LambdaHandler } from './invoke.ts'
import { checkTransactionCapacity, type TransactionCapacityCheck } from './local-capacity.ts'
import { installSdkProbe, withSdkProbe, type SdkAttempt } from './sdk-probe.ts'
import type { SeededTenant } from './seed.ts'
import { round } from './stats.ts'

/** The engine's group size: rows of one course per TransactWriteItems. */
export { ROWS_PER_TRANSACTION }
const BULK_ROWS = 500
const SPREAD_COURSES = 10
const LEARNER_COURSES = 500
const LEARNER_COMPLETIONS = 50
const SETUP_CONCURRENCY = 8

export interface BulkResult {
  readonly name: string
  readonly request: string
  readonly rows: number
  readonly courses: number
  readonly status: number
  readonly created: number | null
  readonly skipped: number | null
  /** Row errors by code (207). */
  readonly rowErrors: Record<string, number>
  /** The body when the answer was neither 201 nor 207. */
  readonly failure: string | null
  readonly transactWriteItems: number
  /** Sum over the courses of ceil(rows / 24): what the design promises. */
  readonly expectedTransactions: number
  readonly ms: number
  readonly cost: CallSummary
}

export interface TranscriptResult {
  readonly name: string
  readonly request: string
  readonly status: number
  readonly items: number | null
  readonly metaTotal: number | null
  readonly completed: number | null
  readonly bytes: number
  readonly ms: number
  readonly calls: readonly LabelledCall[]
  readonly cost: CallSummary
}

export interface EnrollmentsResult {
  readonly setup: {
    readonly courses: number
    readonly coursesWithModule: number
    readonly concurrency: number
    readonly ms: number
    /** Uncounted DynamoDB work of the setup (courses and completions), for scale. */
    readonly cost: Cost
    readonly failedAttempts: Record<string, number>
  }
  readonly bulk: readonly BulkResult[]
  readonly learner: {
    readonly userId: string
    readonly enrollments: number
    readonly completions: number
    readonly completionMs: number
  }
  readonly transcript: readonly TranscriptResult[]
  /** How the store reports a transaction's capacity (see local-capacity.ts). */
  readonly transactionCapacity: TransactionCapacityCheck
  readonly ms: number
}

interface Measured {
  readonly status: number
  readonly body: string
  readonly ms: number
  readonly labelled: LabelledCall[]
  readonly cost: CallSummary
}

async function measure(
  handler: LambdaHandler,
  req: ApiRequest,
  warm: () => Promise<void>,
): Promise<Measured> {
  await warm()
  const { value, attempts } = await withSdkProbe(() => invoke(handler, req))
  const { labelled, summary } = summarizeCalls(value.calls, attempts)
  return {
    status: value.result.statusCode ?? 0,
    body: value.result.body ?? '',
    ms: round(value.ms, 1),
    labelled,
    cost: summary,
  }
}

interface BulkBody {
  readonly created: number
  readonly skipped: number
  readonly errors: readonly { readonly code: string }[]
  readonly enrollments: readonly { readonly index: number; readonly id: string }[]
}

async function bulk(
  name: string,
  handler: LambdaHandler,
  base: Omit<ApiRequest, 'method' | 'url' | 'body'>,
  rows: readonly { readonly user: User; readonly course: CourseFixture }[],
  warm: () => Promise<void>,
): Promise<{ result: BulkResult; body: BulkBody | null }> {
  const url = '/api/v1/enrollments/bulk'
  const req: ApiRequest = {
    ...base,
    method: 'POST',
    url,
    body: { enrollments: rows.map((r) => ({ user_id: r.user.id, course_id: r.course.id })) },
  }
  const m = await measure(handler, req, warm)
  const ok = m.status === 201 || m.status === 207
  const body = ok ? (envelopeOf({ statusCode: m.status, body: m.body }).data as BulkBody) : null
  const perCourse = new Map<string, number>()
  for (const r of rows) perCourse.set(r.course.id, (perCourse.get(r.course.id) ?? 0) + 1)
  const rowErrors: Record<string, number> = {}
  for (const e of body?.errors ?? []) rowErrors[e.code] = (rowErrors[e.code] ?? 0) + 1
  return {
    body,
    result: {
      name,
      request: `POST ${url} (${rows.length} rows)`,
      rows: rows.length,
      courses: perCourse.size,
      status: m.status,
      created: body?.created ?? null,
      skipped: body?.skipped ?? null,
      rowErrors,
      failure: ok ? null : m.body.slice(0, 500),
      transactWriteItems: m.cost.byOp.find((o) => o.op === 'TransactWriteItems')?.calls ?? 0,
      expectedTransactions: [...perCourse.values()].reduce(
        (a, n) => a + Math.ceil(n / ROWS_PER_TRANSACTION),
        0,
      ),
      ms: m.ms,
      cost: m.cost,
    },
  }
}

async function transcript(
  name: string,
  handler: LambdaHandler,
  req: ApiRequest,
  warm: () => Promise<void>,
): Promise<TranscriptResult> {
  const m = await measure(handler, req, warm)
  let items: number | null = null
  let metaTotal: number | null = null
  let completed: number | null = null
  if (m.status === 200 && req.url.includes('format=csv')) {
    const lines = m.body.split('\r\n').filter((l) => l.length > 0)
    items = lines.length - 1
    completed = lines.slice(1).filter((l) => l.split(',')[4] === 'completed').length
  } else if (m.status === 200) {
    const env = envelopeOf({ statusCode: m.status, body: m.body })
    const data = env.data as { items: unknown[]; totals: { completed: number } }
    items = data.items.length
    metaTotal = (env.meta as { total?: number } | null)?.total ?? null
    completed = data.totals.completed
  }
  return {
    name,
    request: `${req.method} ${req.url}`,
    status: m.status,
    items,
    metaTotal,
    completed,
    bytes: Buffer.byteLength(m.body),
    ms: m.ms,
    calls: m.labelled,
    cost: m.cost,
  }
}

function pickActiveUsers(users: readonly User[], count: number): User[] {
  const picked = users.filter((u) => u.isActive).slice(0, count)
  if (picked.length < count) throw new Error(`need ${count} active seeded users, found ${picked.length}`)
  return picked
}

async function setupWork<T>(
  fn: () => Promise<T>,
): Promise<{ value: T; ms: number; cost: Cost; attempts: SdkAttempt[] }> {
  const t = performance.now()
  const { metrics, done } = runWithDbMetrics(() => withSdkProbe(fn))
  const { value, attempts } = await done
  return {
    value,
    ms: performance.now() - t,
    cost: summarizeCalls(metrics.calls, []).summary.totals,
    attempts,
  }
}

export async function runEnrollments(
  handlers: { readonly enrollments: LambdaHandler; readonly users: LambdaHandler },
  seeded: SeededTenant,
): Promise<EnrollmentsResult> {
  const started = performance.now()
  await installSdkProbe()
  const { tenant } = seeded
  const active = pickActiveUsers(seeded.users, 2 * BULK_ROWS + 1)
  const oneCourseUsers = active.slice(0, BULK_ROWS)
  const spreadUsers = active.slice(BULK_ROWS, 2 * BULK_ROWS)
  const learner = active[2 * BULK_ROWS] as User
  const base = { host: seeded.host, apiKey: seeded.scenarioKey } as const
  const warmReq: ApiRequest = { ...base, method: 'GET', url: `/api/v1/users/${learner.id}` }
  const warm = async (): Promise<void> => expectOk(warmReq, (await invoke(handlers.users, warmReq)).result)

  const courses = await setupWork(() =>
    publishedCourses(tenant, 1 + SPREAD_COURSES + LEARNER_COURSES, {
      title: (i) => `Bench course ${String(i).padStart(3, '0')}`,
      // The learner's first courses get one required module, so they can be completed.
      withModule: (i) => i > SPREAD_COURSES && i <= SPREAD_COURSES + LEARNER_COMPLETIONS,
      concurrency: SETUP_CONCURRENCY,
    }),
  )
  const [single, ...rest] = courses.value
  if (!single) throw new Error('no course created')
  const spread = rest.slice(0, SPREAD_COURSES)
  const learnerCourses = rest.slice(SPREAD_COURSES)

  const one = await bulk(
    `${BULK_ROWS} rows, 1 course`,
    handlers.enrollments,
    base,
    oneCourseUsers.map((user) => ({ user, course: single })),
    warm,
  )
  const spreadRun = await bulk(
    `${BULK_ROWS} rows, ${SPREAD_COURSES} courses x ${BULK_ROWS / SPREAD_COURSES}`,
    handlers.enrollments,
    base,
    spreadUsers.map((user, i) => ({ user, course: spread[i % SPREAD_COURSES] as CourseFixture })),
    warm,
  )
  const learnerRun = await bulk(
    `${LEARNER_COURSES} rows, 1 learner x ${LEARNER_COURSES} courses (transcript setup)`,
    handlers.enrollments,
    base,
    learnerCourses.map((course) => ({ user: learner, course })),
    warm,
  )

  const toComplete = (learnerRun.body?.enrollments ?? []).flatMap((e) => {
    const moduleId = learnerCourses[e.index]?.moduleId
    return moduleId ? [{ enrollmentId: e.id, moduleId }] : []
  })
  const completions = await setupWork(() =>
    mapLimit(toComplete, SETUP_CONCURRENCY, (c, i) =>
      recordActivity(tenant, c.enrollmentId, {
        moduleId: c.moduleId,
        kind: 'complete',
        score: 70 + (i % 30),
        timeSpentSeconds: 600 + i * 10,
      }),
    ),
  )

  const url = `/api/v1/users/${learner.id}/transcript`
  const transcripts = [
    await transcript('transcript (JSON)', handlers.users, { ...base, method: 'GET', url }, warm),
    await transcript(
      'transcript (CSV)',
      handlers.users,
      { ...base, method: 'GET', url: `${url}?format=csv` },
      warm,
    ),
  ]

  const failedSetup: Record<string, number> = {}
  for (const a of [...courses.attempts, ...completions.attempts]) {
    if (a.outcome !== 'ok')
      failedSetup[`${a.op} ${a.outcome}`] = (failedSetup[`${a.op} ${a.outcome}`] ?? 0) + 1
  }
  return {
    setup: {
      courses: courses.value.length,
      coursesWithModule: courses.value.filter((c) => c.moduleId !== null).length,
      concurrency: SETUP_CONCURRENCY,
      ms: Math.round(courses.ms),
      cost: courses.cost,
      failedAttempts: failedSetup,
    },
    bulk: [one.result, spreadRun.result, learnerRun.result],
    learner: {
      userId: learner.id,
      enrollments: learnerRun.result.created ?? 0,
      completions: completions.value.length,
      completionMs: Math.round(completions.ms),
    },
    transcript: transcripts,
    transactionCapacity: await checkTransactionCapacity(dynamo, tableName),
    ms: Math.round(performance.now() - started),
  }
}
