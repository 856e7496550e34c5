/**
 * `npm run bench` (replay part, decision 0048): a replay of REPLAY_EVENTS stored events to one
 * endpoint while live events keep flowing to another, on the same relay, queues and workers as
 * `npm start`. Live delivery latency (event written → receiver) is measured quiet, then during the
 * replay, in the same run: the target is a replay that delivers every event while the live p50
 * stays within 2× of the quiet one.
 */
import { randomBytes } from 'node:crypto'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { loadavg } from 'node:os'
import { BENCH_REGION, BENCH_TABLE, startBenchStores } from './bench-stores.ts'

const REPLAY_EVENTS = Number(process.env.BENCH_REPLAY_EVENTS ?? 1000)
/** Live events a second, written open loop (a slow delivery never delays the next write). */
const LIVE_RATE = Number(process.env.BENCH_LIVE_RATE ?? 5)
const QUIET_EVENTS = Number(process.env.BENCH_QUIET_EVENTS ?? 100)
const WARMUP = 50
const DEFAULT_RUN = REPLAY_EVENTS === 1000 && LIVE_RATE === 5 && QUIET_EVENTS === 100
/** Only ends a run that hangs. */
const LIMIT_MS = 900_000

const percentile = (sorted: readonly number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** On a busy machine DynamoDB Local may refuse a connection for a moment: the write is tried again. */
async function persistently(write: () => Promise<void>): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await write()
    } catch (err) {
      if (attempt >= 5) throw err
      await sleep(500 * attempt)
    }
  }
}

async function main(): Promise<void> {
  const stores = await startBenchStores({
    LMS_ALLOW_LOOPBACK_TARGETS: '1',
    LMS_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
  })
  Object.assign(process.env, {
    LMS_WEBHOOKS_QUEUE_URL: stores.queues.webhooks?.url ?? '',
    LMS_REPLAYS_QUEUE_URL: stores.queues.replays?.url ?? '',
  })
  const live: number[] = []
  let replayed = 0
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { createdAt: string }
      if (req.url === '/live') live.push(Date.now() - Date.parse(body.createdAt))
      else replayed += 1
      res.end('ok')
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const receiver = `http://127.0.0.1:${(server.address() as AddressInfo).port}`

  const { createTenant } = await import('../shared/services/tenants/tenants-service.ts')
  const { createEndpoint } = await import('../shared/services/deliveries/webhooks-service.ts')
  const { startReplay } = await import('../shared/services/deliveries/webhook-replay-service.ts')
  const { newEvent } = await import('../shared/domain/events.ts')
  const { appendEvent } = await import('../shared/store/outbox/outbox-store.ts')
  const { startWorkers } = await import('../local/workers.ts')
  const { config } = await import('../shared/config.ts')

  const tenant = await createTenant({ slug: `bench-${randomBytes(3).toString('hex')}`, plan: 'growth' })
  await createEndpoint(tenant, `${receiver}/live`, ['user.deactivated'])
  const workers = startWorkers({ stores, region: BENCH_REGION, tableName: BENCH_TABLE, relay: true })

  // The events the replay sends again: stored before the replay's endpoint exists (so relayed to
  // no one), written by 4 writers.
  const from = new Date(Date.now() - 1).toISOString()
  let written = 0
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (written < REPLAY_EVENTS) {
        written++
        const data = {
          userId: randomBytes(8).toString('hex'),
          email: 'x@example.com',
          role: 'learner' as const,
        }
        await persistently(() =>
          appendEvent(tenant, newEvent('user.created', data, new Date().toISOString())),
        )
      }
    }),
  )
  const to = new Date(Date.now() + 1).toISOString()

  const writeLive = () =>
    persistently(() =>
      appendEvent(
        tenant,
        newEvent(
          'user.deactivated',
          { userId: randomBytes(8).toString('hex'), email: 'x@example.com' },
          new Date().toISOString(),
        ),
      ),
    )
  /** Live events at LIVE_RATE until `until` says stop (or `n` are written); resolves when all are delivered. */
  const liveWhile = async (more: (i: number) => boolean): Promise<number[]> => {
    live.length = 0
    const start = Date.now()
    const writes: Promise<void>[] = []
    for (let i = 0; more(i) && Date.now() - start < LIMIT_MS; i++) {
      const due = start + (i * 1000) / LIVE_RATE
      if (due > Date.now()) await sleep(due - Date.now())
      writes.push(writeLive())
    }
    await Promise.all(writes)
    while (live.length < writes.length && Date.now() - start < LIMIT_MS) await sleep(20)
    return [...live].sort((a, b) => a - b)
  }

  // Warm-up: by its end the relay has also worked through the stored events' stream records (in
  // order), so the replay's endpoint, made only now, gets none of them but by the replay.
  await liveWhile((i) => i < WARMUP)
  const replayEndpoint = (await createEndpoint(tenant, `${receiver}/replay`, ['user.created'])).endpoint
  replayed = 0
  const quietLoad = loadavg()[0] ?? 0
  const quiet = await liveWhile((i) => i < QUIET_EVENTS)

  const duringLoad = loadavg()[0] ?? 0
  const started = Date.now()
  const { queued } = await startReplay(
    tenant,
    replayEndpoint.id,
    { created_after: from, created_before: to },
    'bench',
  )
  const answeredMs = Date.now() - started
  const during = await liveWhile(() => replayed < REPLAY_EVENTS)
  const replayMs = Date.now() - started
  await workers.stop()
  server.close()
  await stores.stop()

  const quietP50 = percentile(quiet, 0.5)
  const duringP50 = percentile(during, 0.5)
  const ratio = Math.round((duringP50 / Math.max(quietP50, 1)) * 100) / 100
  const figures = {
    replayEvents: REPLAY_EVENTS,
    queued,
    replayed,
    routeMs: answeredMs,
    replayMs,
    replayedPerSecond: Math.round((replayed * 10_000) / replayMs) / 10,
    'live.quiet.p50Ms': quietP50,
    'live.quiet.p95Ms': percentile(quiet, 0.95),
    'live.duringReplay.p50Ms': duringP50,
    'live.duringReplay.p95Ms': percentile(during, 0.95),
    'live.duringReplay.events': during.length,
    'live.p50Ratio': ratio,
    targetMet: replayed >= REPLAY_EVENTS && queued === REPLAY_EVENTS && ratio <= 2,
  }
  const lines = [
    `Webhook replay: ${REPLAY_EVENTS} stored events replayed to one endpoint while live events flow to another at ${LIVE_RATE}/s`,
    '---------------------------------------------------------------------------------------------------',
    `pace: pages of ${config.webhookReplayPageSize} outbox items, ${config.webhookReplayPageDelaySeconds} s between pages`,
    `route answered in ${answeredMs} ms (queued ${queued}); all ${replayed} delivered after ${replayMs} ms (${figures.replayedPerSecond}/s)`,
    `live latency quiet:          p50 ${quietP50} ms, p95 ${figures['live.quiet.p95Ms']} ms (${quiet.length} events; load average ${quietLoad.toFixed(1)})`,
    `live latency during replay:  p50 ${duringP50} ms, p95 ${figures['live.duringReplay.p95Ms']} ms (${during.length} events; load average ${duringLoad.toFixed(1)})`,
    `live p50 during / quiet: ${ratio} (target ≤ 2): ${figures.targetMet ? 'met' : 'NOT met'}`,
  ]
  process.stdout.write(`\n${lines.join('\n')}\n`)
  if (DEFAULT_RUN) {
    const { recordSection } = await import('./results-file.ts')
    process.stdout.write(`\n${await recordSection('replay', figures)}\n`)
  }
  process.exit(replayed >= REPLAY_EVENTS ? 0 : 1)
}

main().catch((err: unknown) => {
  process.stderr.write(`bench replay failed: ${err instanceof Error ? err.message : String(err)}\n`)
  process.exit(1)
})
