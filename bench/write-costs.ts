/**
 * What each write route costs in DynamoDB: one request per route through the real route-group
 * handlers, in an order that gives each the state it needs (a user to change, a course to publish,
 * an enrollment to drop), then a 500-row bulk into one course. Before each request a GET by id warms
 * the tenant cache, as db-costs.ts does; the middlewares' calls are told apart from the handler's.
 *
 * Capacity is as DynamoDB Local reports it. Beware: DynamoDB Local reports a transaction's capacity
 * as the sum of its items' DISTINCT capacity records (items that cost the same count once; see
 * local-capacity.ts), so a transaction of many alike items is reported below what AWS bills. The
 * modelled AWS cost of each route is in docs/data-model.md.
 */
import { randomUUID } from 'node:crypto'
import type { User } from '../shared/domain/users/user.ts'
import { bulkEnroll } from '../shared/services/enrollments/enrollments-service.ts'
import { runWithDbMetrics, type DbCall } from '../shared/store/core/metrics.ts'
import { costOf, type Cost } from './call-summary.ts'
import { publishedCourse } from './course-fixtures.ts'
import { labelCalls } from './db-costs.ts'
import { totalsOf, withCapacityModel, type ModelledTotals, type ModelledWrite } from './modelled-capacity.ts'
import { envelopeOf, expectOk, invoke, type ApiRequest, type LambdaHandler } from './invoke.ts'
import type { SeededTenant } from './seed.ts'
import { round } from './stats.ts'

export interface WriteHandlers {
  readonly users: LambdaHandler
  readonly groups: LambdaHandler
  readonly courses: LambdaHandler
  readonly enrollments: LambdaHandler
}

export interface WriteCost {
  readonly name: string
  readonly request: string
  readonly status: number
  readonly ms: number
  /** The route handler's calls (after the middlewares'). */
  readonly handler: Cost
  readonly total: Cost
  /** The handler's calls in order: operation and capacity. */
  readonly calls: readonly DbCall[]
  /** The handler's writes priced by DynamoDB's rules from the items (modelled-capacity.ts). */
  readonly modelled: ModelledTotals
}

/** The middlewares' two counts (minute window, month) are a request's first two UpdateItems. */
function handlerWrites(writes: readonly ModelledWrite[]): ModelledWrite[] {
  let skipped = 0
  return writes.filter((w) => !(w.op === 'UpdateItem' && skipped < 2 && ++skipped > 0))
}

/** The bulk's size: one course, distinct active users. */
export const BULK_INTO_ONE_COURSE = 500

interface Step {
  readonly name: string
  readonly handler: keyof WriteHandlers
  readonly method: 'POST' | 'PATCH' | 'DELETE'
  readonly url: string
  readonly body?: unknown
}

export async function runWriteCosts(handlers: WriteHandlers, seeded: SeededTenant): Promise<WriteCost[]> {
  const active = seeded.users.filter((u) => u.isActive)
  const pick = (i: number): User => {
    const u = active[i]
    if (!u) throw new Error(`need ${i + 1} active seeded users, found ${active.length}`)
    return u
  }
  // The last active users: the enrollments bench (enrollments.ts) takes the first ones.
  const learner = pick(active.length - 1)
  const members = Array.from({ length: 10 }, (_, i) => pick(active.length - 2 - i))
  const bulkUsers = Array.from({ length: BULK_INTO_ONE_COURSE }, (_, i) => pick(active.length - 20 - i))
  const base = { host: seeded.host, apiKey: seeded.scenarioKey } as const
  const warmReq: ApiRequest = { ...base, method: 'GET', url: `/api/v1/users/${learner.id}` }
  const out: WriteCost[] = []

  async function run(step: Step): Promise<Record<string, unknown>> {
    expectOk(warmReq, (await invoke(handlers.users, warmReq)).result)
    const req: ApiRequest = {
      ...base,
      method: step.method,
      url: step.url,
      ...(step.body === undefined ? {} : { body: step.body }),
    }
    const {
      value: { result, calls, ms },
      writes,
    } = await withCapacityModel(() => invoke(handlers[step.handler], req))
    const status = result.statusCode ?? 0
    if (status < 200 || status > 299)
      throw new Error(`${step.method} ${step.url} answered ${status}: ${result.body ?? ''}`)
    const labelled = labelCalls(calls)
    const own = labelled.filter((c) => c.label === 'handler')
    out.push({
      name: step.name,
      request: `${step.method} ${step.url.replace(/[0-9a-f-]{36}/g, '{id}')}`,
      status,
      ms: round(ms, 1),
      handler: costOf(own),
      total: costOf(labelled),
      calls: own.map(({ op, rcu, wcu }) => ({ op, rcu, wcu })),
      modelled: totalsOf(handlerWrites(writes)),
    })
    // 204 has no body.
    return (result.body ? (envelopeOf(result).data ?? {}) : {}) as Record<string, unknown>
  }
  const idOf = (data: Record<string, unknown>): string => String(data.id)

  const user = idOf(
    await run({
      name: 'user create',
      handler: 'users',
      method: 'POST',
      url: '/api/v1/users',
      body: {
        email: `w-${randomUUID()}@bench.example.com`,
        first_name: 'Ada',
        last_name: 'Write',
        role: 'learner',
      },
    }),
  )
  await run({
    name: 'user update (name)',
    handler: 'users',
    method: 'PATCH',
    url: `/api/v1/users/${user}`,
    body: { first_name: 'Grace' },
  })
  await run({
    name: 'user update (role: moves counters)',
    handler: 'users',
    method: 'PATCH',
    url: `/api/v1/users/${user}`,
    body: { role: 'instructor' },
  })
  const group = idOf(
    await run({
      name: 'group create',
      handler: 'groups',
      method: 'POST',
      url: '/api/v1/groups',
      body: { name: `W ${randomUUID()}` },
    }),
  )
  await run({
    name: 'group update (description)',
    handler: 'groups',
    method: 'PATCH',
    url: `/api/v1/groups/${group}`,
    body: { description: 'Benchmark group' },
  })
  await run({
    name: 'group members add (1)',
    handler: 'groups',
    method: 'POST',
    url: `/api/v1/groups/${group}/members`,
    body: { user_ids: [user] },
  })
  await run({
    name: 'group members add (10)',
    handler: 'groups',
    method: 'POST',
    url: `/api/v1/groups/${group}/members`,
    body: { user_ids: members.map((u) => u.id) },
  })
  await run({
    name: 'group members remove (1)',
    handler: 'groups',
    method: 'DELETE',
    url: `/api/v1/groups/${group}/members`,
    body: { user_ids: [user] },
  })
  await run({ name: 'group delete', handler: 'groups', method: 'DELETE', url: `/api/v1/groups/${group}` })
  await run({ name: 'user deactivate', handler: 'users', method: 'DELETE', url: `/api/v1/users/${user}` })

  const course = idOf(
    await run({
      name: 'course create',
      handler: 'courses',
      method: 'POST',
      url: '/api/v1/courses',
      body: {
        title: 'Write costs',
        description: 'A course of the write-cost benchmark.',
        estimated_minutes: 30,
      },
    }),
  )
  await run({
    name: 'course update (title)',
    handler: 'courses',
    method: 'PATCH',
    url: `/api/v1/courses/${course}`,
    body: { title: 'Write costs, renamed' },
  })
  await run({
    name: 'module append',
    handler: 'courses',
    method: 'POST',
    url: `/api/v1/courses/${course}/modules`,
    body: { title: 'Lesson', module_type: 'video', is_required: true },
  })
  await run({
    name: 'course publish',
    handler: 'courses',
    method: 'PATCH',
    url: `/api/v1/courses/${course}`,
    body: { status: 'published' },
  })
  const enrollment = idOf(
    await run({
      name: 'enrollment (one)',
      handler: 'enrollments',
      method: 'POST',
      url: '/api/v1/enrollments',
      body: { user_id: learner.id, course_id: course },
    }),
  )
  await run({
    name: 'enrollment via course (one)',
    handler: 'courses',
    method: 'POST',
    url: `/api/v1/courses/${course}/enrollments`,
    body: { user_id: pick(active.length - 19).id },
  })
  await run({
    name: 'enrollment update (due date)',
    handler: 'enrollments',
    method: 'PATCH',
    url: `/api/v1/enrollments/${enrollment}`,
    body: { due_date: '2030-01-31T00:00:00Z' },
  })
  await run({
    name: 'enrollment drop',
    handler: 'enrollments',
    method: 'DELETE',
    url: `/api/v1/enrollments/${enrollment}`,
  })
  await run({
    name: 'course archive',
    handler: 'courses',
    method: 'DELETE',
    url: `/api/v1/courses/${course}`,
  })

  // Through the service, not the handler: 21 transactions take longer than the gateway's 29 s on
  // a loaded machine, and the handler adds only the middlewares' calls to them.
  const bulkCourse = await publishedCourse(seeded.tenant, 'Write costs: bulk', false)
  const t = performance.now()
  const { metrics, done } = runWithDbMetrics(() =>
    withCapacityModel(() =>
      bulkEnroll(
        seeded.tenant,
        bulkUsers.map((u) => ({ userId: u.id, courseId: bulkCourse.id, dueDate: null })),
      ),
    ),
  )
  const { value: results, writes } = await done
  const refused = results.filter((r) => !('ok' in r)).length
  if (refused > 0) throw new Error(`bulk: ${refused} rows refused`)
  out.push({
    name: `bulk: ${BULK_INTO_ONE_COURSE} rows into one course (service)`,
    request: 'bulkEnroll (POST /api/v1/enrollments/bulk)',
    status: 201,
    ms: round(performance.now() - t, 1),
    handler: costOf(metrics.calls),
    total: costOf(metrics.calls),
    calls: metrics.calls.map(({ op, rcu, wcu }) => ({ op, rcu, wcu })),
    modelled: totalsOf(writes),
  })
  return out
}

export function formatWriteCosts(costs: readonly WriteCost[]): string[] {
  const lines = [
    `  ${'route'.padEnd(40)} ${'modelled WCU (table + indexes)'.padEnd(34)} ${'local WCU'.padStart(9)} ${'RCU'.padStart(6)} ${'calls'.padStart(5)}  by index`,
  ]
  for (const c of costs) {
    const m = c.modelled
    const byIndex = Object.entries(m.byIndex)
      .map(([n, x]) => `${n} ${x}`)
      .join(', ')
    lines.push(
      `  ${c.name.padEnd(40)} ${`${m.wcu} (${m.tableWcu} + ${m.indexWcu})`.padEnd(34)} ${String(c.handler.wcu).padStart(9)} ${String(c.handler.rcu).padStart(6)} ${String(c.handler.calls).padStart(5)}  ${byIndex}`,
    )
  }
  return lines
}
