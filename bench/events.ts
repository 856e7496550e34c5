/**
 * `npm run bench` (events part): events per second through outbox → stream relay → SQS → webhook
 * worker → a receiver on loopback, end-to-end latency, and the product's DynamoDB and SQS calls
 * per delivered event. Runs the same relay and worker code as `npm start`, on its own stores.
 */
import { randomBytes } from 'node:crypto'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { loadavg } from 'node:os'
import type { AwsCall } from '../test/helpers/dynamodb-calls.ts'
import { BENCH_REGION, BENCH_TABLE, startBenchStores } from './bench-stores.ts'
import { stageTracer, type StageSummary } from './event-stages.ts'
import { cpuSince } from './process-cpu.ts'
import type { Figures } from './results-file.ts'

/**
 * Two measurements, because one burst cannot give both. Latency is taken at a steady rate below
 * what the stack drains (events written one every 1000/RATE ms, open loop: a slow delivery never
 * delays the next write), so it measures the path an event takes, not a queue. Throughput is
 * taken at saturation: EVENTS written by 8 writers as fast as they go, which builds a backlog, so
 * its p50 is mostly time spent queueing behind it (printed, not the latency goal).
 */
const STEADY_RATE = Number(process.env.BENCH_EVENT_RATE ?? 5)
const STEADY_EVENTS = Number(process.env.BENCH_STEADY_EVENTS ?? 150)
const EVENTS = Number(process.env.BENCH_EVENTS ?? 300)
/**
 * Events sent through the whole path, and not measured, before the measured ones: a stack that
 * runs (`npm start`) has a warm DynamoDB Local, whereas a Java process just started spends most
 * of its first seconds compiling itself, which made the first figures measure the JIT, not the
 * pipeline. `BENCH_WARMUP_EVENTS=0` measures a cold stack.
 */
const WARMUP = Number(process.env.BENCH_WARMUP_EVENTS ?? 200)
/** Figures go to bench/results.json only from the default run, so they compare like with like. */
const DEFAULT_RUN = STEADY_RATE === 5 && STEADY_EVENTS === 150 && EVENTS === 300 && WARMUP === 200

/** What one measured phase came to. */
interface PhaseResult {
  readonly events: number
  readonly delivered: number
  /** The machine's 1-minute load average when the phase started: other work on it moves latency most. */
  readonly loadAverage: number
  readonly writtenMs: number
  readonly elapsedMs: number
  readonly deliveriesPerSecond: number
  readonly p50Ms: number
  readonly p95Ms: number
  readonly maxMs: number
  readonly ownCpuMsPerEvent: number
  readonly dynamoLocalCpuMsPerEvent: number
  readonly stages: readonly StageSummary[]
  readonly stageLines: readonly string[]
  readonly calls: readonly (readonly [string, number])[]
  readonly callsPerWebhook: number
  readonly queueCalls: readonly (readonly [string, number])[]
  readonly checkpointsPerEvent: number
}

interface Counter {
  readonly byOp: Map<string, number>
  /**
   * The local stream poller's checkpoint puts: in AWS the event source mapping keeps a stream's
   * position (shared/store/outbox/outbox-store.ts, putCheckpoint), so, like the SQS pollers' receives and
   * deletes, they are the emulator's calls, not the product's. Counted apart, shown, not in the total.
   */
  checkpoints: number
}

function count(
  wrapDynamoDbCalls: (wrap: (next: AwsCall) => AwsCall) => unknown,
  counter: Counter,
  checkpointPk?: string,
): void {
  wrapDynamoDbCalls((next) => async (op, input) => {
    const pk = (input as { Item?: { pk?: { S?: string } } }).Item?.pk?.S
    if (op === 'PutItem' && checkpointPk !== undefined && pk === checkpointPk) counter.checkpoints += 1
    else counter.byOp.set(op, (counter.byOp.get(op) ?? 0) + 1)
    return next(op, input)
  })
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0

async function main(): Promise<void> {
  const stores = await startBenchStores({
    LMS_ALLOW_LOOPBACK_TARGETS: '1',
    LMS_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
  })
  const webhooks = stores.queues.webhooks
  Object.assign(process.env, {
    LMS_WEBHOOKS_QUEUE_URL: webhooks?.url ?? '',
  })
  const received: number[] = []
  const stages = stageTracer((eventId) => deliveryIdFor(eventId, endpointId))
  let endpointId = ''
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: string; createdAt: string }
      received.push(Date.now() - Date.parse(body.createdAt))
      stages.received(body.id)
      res.end('ok')
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const receiverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`

  const { wrapDynamoDbCalls, wrapQueueCalls } = await import('../test/helpers/dynamodb-calls.ts')
  const { createTenant } = await import('../shared/services/tenants/tenants-service.ts')
  const { createEndpoint } = await import('../shared/services/deliveries/webhooks-service.ts')
  const { newEvent } = await import('../shared/domain/events.ts')
  const { appendEvent } = await import('../shared/store/outbox/outbox-store.ts')
  const { startWorkers } = await import('../local/workers.ts')
  const { deliveryIdFor } = await import('../shared/domain/webhooks/webhook.ts')

  const tenant = await createTenant({ slug: `bench-${randomBytes(3).toString('hex')}`, plan: 'growth' })
  endpointId = (await createEndpoint(tenant, receiverUrl, ['user.created'])).endpoint.id
  const db: Counter = { byOp: new Map(), checkpoints: 0 }
  const queue: Counter = { byOp: new Map(), checkpoints: 0 }
  const { keys } = await import('../shared/store/core/keys.ts')
  count(wrapDynamoDbCalls, db, keys.relayCheckpoint('').pk)
  stages.watchDynamo(wrapDynamoDbCalls)
  wrapQueueCalls((next) => async (op, input) => {
    queue.byOp.set(op, (queue.byOp.get(op) ?? 0) + 1)
    const out = await next(op, input)
    if (op === 'SendMessage') stages.queued(String(input.MessageBody))
    return out
  })
  const workers = startWorkers({ stores, region: BENCH_REGION, tableName: BENCH_TABLE, relay: true })

  const writeOne = async () => {
    const e = newEvent(
      'user.created',
      { userId: randomBytes(8).toString('hex'), email: 'x@example.com', role: 'learner' },
      new Date().toISOString(),
    )
    await appendEvent(tenant, e)
    stages.written(e.id, e.createdAt)
  }
  /** Writes `n` events with 8 writers, as fast as they go. */
  const burst = async (n: number): Promise<void> => {
    let next = 0
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < n) {
          next++
          await writeOne()
        }
      }),
    )
  }
  /** Writes `n` events at `perSecond`, each on its own schedule whether or not the last is acknowledged. */
  const paced = async (n: number, perSecond: number): Promise<void> => {
    const start = Date.now()
    const writes: Promise<void>[] = []
    for (let i = 0; i < n; i++) {
      const due = start + (i * 1000) / perSecond
      if (due > Date.now()) await new Promise((r) => setTimeout(r, due - Date.now()))
      writes.push(writeOne())
    }
    await Promise.all(writes)
  }
  const deliveredAll = async (n: number, since: number) => {
    while (received.length < n && Date.now() - since < 300_000) await new Promise((r) => setTimeout(r, 20))
  }
  const settle = async () => {
    // Whatever a phase left in flight (its checkpoints, a late duplicate) is let settle.
    await new Promise((r) => setTimeout(r, 1000))
    received.length = 0
    db.byOp.clear()
    db.checkpoints = 0
    queue.byOp.clear()
    stages.clear()
  }

  /** One measured phase: writes `n` events with `write`, waits for their deliveries. */
  const phase = async (n: number, write: (n: number) => Promise<void>): Promise<PhaseResult> => {
    const load = loadavg()[0] ?? 0
    const cpu = cpuSince()
    const started = Date.now()
    await write(n)
    const written = Date.now()
    await deliveredAll(n, started)
    const done = Date.now()
    const spent = cpu()
    const delivered = received.length
    const per = (x: number) => x / Math.max(delivered, 1)
    const calls = [...db.byOp.entries()]
      // The bench's own event writes are one-put transactions: not the product's calls.
      .map(([op, c]) => [op, op === 'TransactWriteItems' ? c - n : c] as const)
      .filter(([, c]) => c > 0)
    const latencies = [...received].sort((a, b) => a - b)
    const result: PhaseResult = {
      events: n,
      delivered,
      loadAverage: Math.round(load * 10) / 10,
      writtenMs: written - started,
      elapsedMs: done - started,
      deliveriesPerSecond: Math.round((delivered * 10_000) / (done - started)) / 10,
      p50Ms: percentile(latencies, 0.5),
      p95Ms: percentile(latencies, 0.95),
      maxMs: latencies.at(-1) ?? 0,
      ownCpuMsPerEvent: Math.round(per(spent.ownMs) * 10) / 10,
      dynamoLocalCpuMsPerEvent: Math.round(per(spent.childrenMs) * 10) / 10,
      stages: stages.summary(),
      stageLines: stages.report(),
      calls,
      callsPerWebhook: Math.round(per(calls.reduce((s, [, c]) => s + c, 0)) * 100) / 100,
      queueCalls: [...queue.byOp.entries()],
      checkpointsPerEvent: Math.round(per(db.checkpoints) * 100) / 100,
    }
    await settle()
    return result
  }

  if (WARMUP > 0) {
    const warming = Date.now()
    await burst(WARMUP)
    await deliveredAll(WARMUP, warming)
    await settle()
  }
  const steady = await phase(STEADY_EVENTS, (n) => paced(n, STEADY_RATE))
  const saturated = await phase(EVENTS, burst)
  await workers.stop()
  server.close()
  await stores.stop()

  const perEvent = (n: number, delivered: number) => (n / Math.max(delivered, 1)).toFixed(2)
  const describe = (r: PhaseResult) => [
    `latency from event to receiver: p50 ${r.p50Ms} ms, p95 ${r.p95Ms} ms, max ${r.maxMs} ms (load average ${r.loadAverage} at the start)`,
    `throughput: ${r.deliveriesPerSecond} delivered events/s (${r.delivered} of ${r.events} delivered; written in ${r.writtenMs} ms, first write to last delivery ${r.elapsedMs} ms)`,
    `CPU per delivered event (writes included): ${r.ownCpuMsPerEvent} ms this process (relay, workers, SQS emulator, writers), ${r.dynamoLocalCpuMsPerEvent} ms DynamoDB Local`,
    'where an event waits (per delivery, from the product’s own calls):',
    ...r.stageLines,
    'product DynamoDB calls per delivered event (relay + worker; the event writes themselves excluded):',
    ...r.calls.map(
      ([op, n]) => `  ${op.padEnd(20)} ${String(n).padStart(6)}  (${perEvent(n, r.delivered)} per event)`,
    ),
    `  total                ${String(r.calls.reduce((s, [, n]) => s + n, 0)).padStart(6)}  (${r.callsPerWebhook} per event)`,
    `  not counted: the local stream poller's checkpoint puts, ${r.checkpointsPerEvent} per event (the event source mapping's in AWS)`,
    'product SQS calls per delivered event (the pollers’ receive/delete are the event source mapping’s):',
    ...r.queueCalls.map(
      ([op, n]) => `  ${op.padEnd(20)} ${String(n).padStart(6)}  (${perEvent(n, r.delivered)} per event)`,
    ),
  ]
  const lines = [
    'Events: outbox → stream relay → SQS → webhook worker → loopback receiver',
    '-----------------------------------------------------------------------',
    WARMUP > 0
      ? `after ${WARMUP} events through the whole path to warm the stack (not counted below)`
      : 'on a cold stack (no warm-up)',
    '',
    `Latency at a steady rate (the latency goal): ${STEADY_EVENTS} user.created events at ${STEADY_RATE}/s`,
    ...describe(steady),
    '',
    `Throughput at saturation: ${EVENTS} user.created events written by 8 writers as fast as they go`,
    '(the latency here is mostly queueing behind the backlog the burst builds)',
    ...describe(saturated),
  ]
  process.stdout.write(`\n${lines.join('\n')}\n`)
  if (DEFAULT_RUN) {
    const { recordSection } = await import('./results-file.ts')
    process.stdout.write(`\n${await recordSection('events', eventFigures({ steady, saturated }))}\n`)
  }
  process.exit(steady.delivered === STEADY_EVENTS && saturated.delivered === EVENTS ? 0 : 1)
}

/** The figures of bench/results.json's `events` section. */
function eventFigures(runs: Record<string, PhaseResult>): Figures {
  const out: Figures = {}
  for (const [name, r] of Object.entries(runs)) {
    for (const key of [
      'loadAverage',
      'deliveriesPerSecond',
      'p50Ms',
      'p95Ms',
      'callsPerWebhook',
      'checkpointsPerEvent',
      'ownCpuMsPerEvent',
      'dynamoLocalCpuMsPerEvent',
    ] as const)
      out[`${name}.${key}`] = r[key]
    for (const s of r.stages) out[`${name}.stage.${s.name}.p50Ms`] = s.p50
  }
  return out
}

main().catch((err: unknown) => {
  process.stderr.write(`bench events failed: ${err instanceof Error ? err.message : String(err)}\n`)
  process.exit(1)
})
