/**
 * `npm run bench` (events part): events per second through outbox → stream relay → SQS → webhook
 * worker → a receiver on loopback, end-to-end latency, and the product's DynamoDB and SQS calls
 * per delivered event. Runs the same relay and worker code as `npm start`, on its own stores.
 */
import { randomBytes } from 'node:crypto'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { BENCH_REGION, BENCH_TABLE, startBenchStores } from './bench-stores.ts'
import { stageTracer } from './event-stages.ts'
import { cpuSince } from './process-cpu.ts'

const EVENTS = Number(process.env.BENCH_EVENTS ?? 300)
/**
 * Events sent through the whole path, and not measured, before the measured ones: a stack that
 * runs (`npm start`) has a warm DynamoDB Local, whereas a Java process just started spends most
 * of its first seconds compiling itself, which made the first figures measure the JIT, not the
 * pipeline. `BENCH_WARMUP_EVENTS=0` measures a cold stack.
 */
const WARMUP = Number(process.env.BENCH_WARMUP_EVENTS ?? 200)

interface Counter {
  readonly byOp: Map<string, number>
}

function count(client: { middlewareStack: { add: (...args: never[]) => void } }, counter: Counter): void {
  const add = client.middlewareStack.add as unknown as (
    mw: (
      next: (args: unknown) => Promise<unknown>,
      context: { commandName?: string },
    ) => (args: unknown) => Promise<unknown>,
    options: { step: string; name: string },
  ) => void
  add(
    (next, context) => async (args) => {
      const op = (context.commandName ?? 'Unknown').replace(/Command$/, '')
      counter.byOp.set(op, (counter.byOp.get(op) ?? 0) + 1)
      return next(args)
    },
    { step: 'initialize', name: 'benchCounter' },
  )
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

  const { dynamo } = await import('../shared/store/clients.ts')
  const { sqs } = await import('../shared/queue/sqs.ts')
  const { createTenant } = await import('../shared/services/tenants-service.ts')
  const { createEndpoint } = await import('../shared/services/webhooks-service.ts')
  const { newEvent } = await import('../shared/domain/events.ts')
  const { appendEvent } = await import('../shared/store/outbox-store.ts')
  const { startWorkers } = await import('../local/workers.ts')
  const { deliveryIdFor } = await import('../shared/domain/webhooks/webhook.ts')

  const tenant = await createTenant({ slug: `bench-${randomBytes(3).toString('hex')}`, plan: 'growth' })
  endpointId = (await createEndpoint(tenant, receiverUrl, ['user.created'])).endpoint.id
  const db: Counter = { byOp: new Map() }
  const queue: Counter = { byOp: new Map() }
  count(dynamo as never, db)
  count(sqs as never, queue)
  stages.watchDynamo(dynamo as never)
  stages.watchQueue(sqs as never)
  const workers = startWorkers({ stores, region: BENCH_REGION, tableName: BENCH_TABLE, relay: true })

  /** Writes `n` events with 8 writers, as fast as they go. @returns when the last write was acknowledged */
  const writeEvents = async (n: number): Promise<number> => {
    let next = 0
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < n) {
          next++
          const e = newEvent(
            'user.created',
            { userId: randomBytes(8).toString('hex'), email: 'x@example.com', role: 'learner' },
            new Date().toISOString(),
          )
          await appendEvent(tenant, e)
          stages.written(e.id, e.createdAt)
        }
      }),
    )
    return Date.now()
  }
  const deliveredAll = async (n: number, since: number) => {
    while (received.length < n && Date.now() - since < 300_000) await new Promise((r) => setTimeout(r, 20))
  }

  if (WARMUP > 0) {
    const warming = Date.now()
    await writeEvents(WARMUP)
    await deliveredAll(WARMUP, warming)
    // Whatever the warm-up left in flight (its checkpoints, a late duplicate) is let settle.
    await new Promise((r) => setTimeout(r, 1000))
    received.length = 0
    db.byOp.clear()
    queue.byOp.clear()
    stages.clear()
  }

  const cpu = cpuSince()
  const started = Date.now()
  const written = await writeEvents(EVENTS)
  await deliveredAll(EVENTS, started)
  const done = Date.now()
  const spent = cpu()
  await workers.stop()
  server.close()
  await stores.stop()

  const dbCalls = [...db.byOp.entries()]
    .map(([op, n]) => [op, op === 'TransactWriteItems' ? n - EVENTS : n] as const)
    .filter(([, n]) => n > 0)
  const perEvent = (n: number) => (n / Math.max(received.length, 1)).toFixed(2)
  const latencies = [...received].sort((a, b) => a - b)
  const lines = [
    'Events: outbox → stream relay → SQS → webhook worker → loopback receiver',
    '-----------------------------------------------------------------------',
    WARMUP > 0
      ? `after ${WARMUP} events through the whole path to warm the stack (not counted below)`
      : 'on a cold stack (no warm-up)',
    `${EVENTS} user.created events written in ${written - started} ms (8 writers), ${received.length} delivered`,
    `throughput: ${((received.length * 1000) / (done - started)).toFixed(1)} delivered events/s (first write to last delivery: ${done - started} ms)`,
    `latency from event to receiver: p50 ${percentile(latencies, 0.5)} ms, p95 ${percentile(latencies, 0.95)} ms, max ${latencies.at(-1) ?? 0} ms`,
    `CPU per delivered event (writes included): ${perEvent(spent.ownMs)} ms this process (relay, workers, SQS emulator, writers), ${perEvent(spent.childrenMs)} ms DynamoDB Local`,
    'where an event waits (per delivery, from the product’s own calls):',
    ...stages.report(),
    'product DynamoDB calls per delivered event (relay + worker; the event writes themselves excluded):',
    ...dbCalls.map(([op, n]) => `  ${op.padEnd(20)} ${String(n).padStart(6)}  (${perEvent(n)} per event)`),
    `  total                ${String(dbCalls.reduce((s, [, n]) => s + n, 0)).padStart(6)}  (${perEvent(dbCalls.reduce((s, [, n]) => s + n, 0))} per event)`,
    'product SQS calls per delivered event (the pollers’ receive/delete are the event source mapping’s):',
    ...[...queue.byOp.entries()].map(
      ([op, n]) => `  ${op.padEnd(20)} ${String(n).padStart(6)}  (${perEvent(n)} per event)`,
    ),
  ]
  process.stdout.write(`\n${lines.join('\n')}\n`)
  process.exit(received.length === EVENTS ? 0 : 1)
}

main().catch((err: unknown) => {
  process.stderr.write(`bench events failed: ${err instanceof Error ? err.message : String(err)}\n`)
  process.exit(1)
})
