/**
 * `npm run bench` (events-list part, issue #32, decision 0053): the first page of
 * `GET /api/v1/events` at 100,000 stored events of one tenant spread over the 30-day window. The
 * events' outbox items are written directly by BatchWriteItem, as the outbox writer builds them and
 * as the relay's mark leaves them, with their counter items as the marks' additions leave them
 * (`counterItems`: the same keys, merged), since a mark per event would take DynamoDB Local an
 * hour. The read units of the events API's reads (page and `meta.total`) are summed from the
 * consumed capacity DynamoDB Local reports for each call; the route's p50 is taken over HTTP
 * through the local gateway. Target: first page of 50 ≤ 10 RCU.
 */
import { request } from 'node:http'
import { startBenchStores } from './bench-stores.ts'

const EVENTS = Number(process.env.BENCH_LIST_EVENTS ?? 100_000)
const DEFAULT_RUN = EVENTS === 100_000
const HTTP_REQUESTS = 100
const DAY = 24 * 3600 * 1000

const percentile = (sorted: readonly number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0

/** One GET over HTTP to the local gateway, as the tenant's host; resolves with its status and time. */
function get(url: string, host: string, key: string): Promise<{ status: number; ms: number }> {
  const started = performance.now()
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { host, authorization: `Bearer ${key}` } }, (res) => {
      res.resume()
      res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started }))
    })
    req.on('error', reject)
    req.end()
  })
}

async function main(): Promise<void> {
  const stores = await startBenchStores({ LMS_TENANT_CACHE_MS: '60000' })
  const { config } = await import('../shared/config.ts')
  const { createApiKey, createTenant } = await import('../shared/services/tenants/tenants-service.ts')
  const { listEvents } = await import('../shared/services/outbox/events-service.ts')
  const { newEvent } = await import('../shared/domain/events.ts')
  const { windowStart } = await import('../shared/domain/webhooks/event-list.ts')
  const { outboxExpiry, outboxPut } = await import('../shared/store/outbox/outbox-items.ts')
  const { counterItems } = await import('../shared/store/outbox/event-counters.ts')
  const { eventsPageParams } = await import('../shared/store/outbox/event-index.ts')
  const { batchPut, queryCount } = await import('../shared/store/core/db.ts')
  const { runWithDbMetrics, summarize } = await import('../shared/store/core/metrics.ts')
  const { startGateway } = await import('../local/gateway.ts')
  const { recordSection } = await import('./results-file.ts')

  const tenant = await createTenant({ slug: 'bench-events', plan: 'growth', kind: 'customer' })
  const { key } = await createApiKey(tenant, ['read'])

  // 100,000 catalog events, evenly over the window (newest a minute ago), of the usual kinds.
  const now = Date.now()
  const span = 30 * DAY - 3600_000
  const id = () => crypto.randomUUID()
  const events = Array.from({ length: EVENTS }, (_, i) => {
    const at = new Date(now - 60_000 - Math.floor(((i + 0.5) * span) / EVENTS)).toISOString()
    switch (i % 4) {
      case 0:
        return newEvent(
          'enrollment.created',
          { enrollmentId: id(), userId: id(), courseId: id(), status: 'active' },
          at,
        )
      case 1:
        return newEvent(
          'enrollment.completed',
          { enrollmentId: id(), userId: id(), courseId: id(), completedAt: at },
          at,
        )
      case 2:
        return newEvent(
          'user.created',
          { userId: id(), email: `u${i}@bench.example.com`, role: 'learner' },
          at,
        )
      default:
        return newEvent('course.published', { courseId: id(), title: `Course ${i}` }, at)
    }
  })
  // Each item as the relay's mark leaves it (out of the pending index, relayed_at set), and the
  // counters as the marks' additions leave them (the same keys, merged: event-counters.ts).
  const relayedAt = new Date().toISOString()
  const items = events.map((e) => {
    const pending = new Set(['gsi1pk', 'gsi1sk'])
    const item = Object.entries(outboxPut(tenant, e).Put?.Item ?? {}).filter(([name]) => !pending.has(name))
    return {
      ...Object.fromEntries(item),
      relayed_at: relayedAt,
      relayed_deliveries: 0,
      ttl: outboxExpiry(relayedAt),
    }
  })
  const counters = counterItems(tenant, events)
  let started = Date.now()
  await batchPut(items, 16)
  const writeMs = Date.now() - started
  started = Date.now()
  await batchPut(counters, 16)
  const counterMs = Date.now() - started

  /** The read units of one service call, summed over every DynamoDB call it made. */
  const measured = async <T>(fn: () => Promise<T>) => {
    const { metrics, done } = runWithDbMetrics(fn)
    const value = await done
    const each = metrics.calls.map((c) => c.rcu)
    // DynamoDB bills a Query at least 0.5 RCU (eventually consistent), even when it reads nothing:
    // DynamoDB Local reports 0 for those.
    const billed = each.reduce((a, rcu) => a + Math.max(0.5, rcu), 0)
    return { value, ...summarize(metrics), each, billed }
  }
  const first = { offset: 0, limit: 50 }
  const mid = new Date(now - 12.3 * DAY).toISOString()
  const cases = {
    all: await measured(() => listEvents(tenant, first)),
    oneType: await measured(() => listEvents(tenant, { ...first, types: ['enrollment.created'] })),
    twoTypes: await measured(() =>
      listEvents(tenant, { ...first, types: ['enrollment.created', 'user.created'] }),
    ),
    range: await measured(() =>
      listEvents(tenant, {
        ...first,
        createdAfter: new Date(now - 20.7 * DAY).toISOString(),
        createdBefore: mid,
      }),
    ),
  }
  const countQuery = await measured(() =>
    queryCount(eventsPageParams(tenant, { after: windowStart(new Date().toISOString()) })),
  )
  const exact = cases.all.value.total === EVENTS && cases.oneType.value.total === EVENTS / 4
  const countedAsBefore = countQuery.value

  // The route over HTTP (warm: the first request imports the handler and caches tenant and key).
  const gateway = await startGateway(0)
  const host = `${tenant.slug}.${config.serviceHost}`
  const url = `${gateway.url}/api/v1/events?per_page=50`
  await get(url, host, key)
  const times: number[] = []
  for (let i = 0; i < HTTP_REQUESTS; i++) {
    const r = await get(url, host, key)
    if (r.status !== 200) throw new Error(`GET /api/v1/events answered ${r.status}`)
    times.push(r.ms)
  }
  times.sort((a, b) => a - b)
  gateway.server.close()
  await stores.stop()

  const round1 = (n: number) => Math.round(n * 10) / 10
  const figures = {
    events: EVENTS,
    'firstPage.rcu': round1(cases.all.billed),
    'firstPage.rcuReported': round1(cases.all.rcu),
    'firstPage.calls': cases.all.calls,
    counterItems: counters.length,
    'firstPage.oneType.rcu': round1(cases.oneType.billed),
    'firstPage.twoTypes.rcu': round1(cases.twoTypes.billed),
    'firstPage.range.rcu': round1(cases.range.billed),
    'countQueryOfWindow.rcu': round1(countQuery.rcu),
    'route.p50Ms': round1(percentile(times, 0.5)),
    'route.p95Ms': round1(percentile(times, 0.95)),
    totalsExact: exact && countedAsBefore === EVENTS,
    targetMet: cases.all.billed <= 10 && exact,
  }
  const line = (
    name: string,
    c: { billed: number; calls: number; value: { total: number; items: unknown[] } },
  ) =>
    `  ${name.padEnd(38)} ${String(round1(c.billed)).padStart(5)} RCU in ${c.calls} Queries (${c.value.items.length} items, total ${c.value.total})`
  const lines = [
    `Events API: first page of 50 at ${EVENTS} stored events of one tenant over 30 days`,
    '---------------------------------------------------------------------------------',
    `${EVENTS} outbox items written in ${writeMs} ms, their ${counters.length} counter items in ${counterMs} ms (BatchWriteItem)`,
    line('no filter', cases.all),
    `    each Query: ${cases.all.each.join(' + ')} RCU as reported, in the order they answered (a Query reading nothing is billed 0.5)`,
    line('type=enrollment.created', cases.oneType),
    line('type=enrollment.created,user.created', cases.twoTypes),
    line('created_after/before (mid-window)', cases.range),
    `  the COUNT Query of the window it replaces: ${round1(countQuery.rcu)} RCU in ${countQuery.calls} Queries (${countedAsBefore} counted)`,
    `route over HTTP: p50 ${figures['route.p50Ms']} ms, p95 ${figures['route.p95Ms']} ms (${HTTP_REQUESTS} requests)`,
    `first page ≤ 10 RCU with an exact total: ${figures.targetMet ? 'met' : 'NOT met'}`,
  ]
  process.stdout.write(`\n${lines.join('\n')}\n`)
  if (DEFAULT_RUN) process.stdout.write(`\n${await recordSection('eventsList', figures)}\n`)
  process.exit(figures.targetMet ? 0 : 1)
}

main().catch((err: unknown) => {
  process.stderr.write(`bench events-list failed: ${err instanceof Error ? err.stack : String(err)}\n`)
  process.exit(1)
})
