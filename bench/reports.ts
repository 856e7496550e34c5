/**
 * `npx tsx bench/reports.ts` (part of `npm run bench`): the five reports on a Growth tenant of
 * 10,000 users and 100,000 enrollments over 190 courses, in DynamoDB Local (in memory). Each
 * report's default first page and filtered pages go through the reports Lambda handler in process
 * (bench/invoke.ts); every DynamoDB call is counted with the capacity DynamoDB Local reports.
 * Target: at most 50 RCU per report page (the whole request). Writes the `reports` section of
 * bench/results.json.
 *
 * BENCH_SCALE (default 1) scales users and courses for a quick run (0.05: 500 users, 5,000
 * enrollments); the committed figures are from a full-scale run. BENCH_SEED_CONCURRENCY (default 4)
 * is the number of BatchWriteItem calls in flight while seeding.
 */
import { startBenchStores } from './bench-stores.ts'

const SCALE = Number(process.env.BENCH_SCALE ?? '1')
const USERS = Math.round(10_000 * SCALE)
const PER_USER = 10
const COURSES = Math.max(20, Math.round(200 * Math.min(1, SCALE * 4)))
const SEED_CONCURRENCY = Number(process.env.BENCH_SEED_CONCURRENCY ?? '4')
const TARGET_RCU = 50
const DAY = 86_400_000

function progress(step: string): void {
  process.stderr.write(`bench/reports: ${step}...\n`)
}

async function main(): Promise<void> {
  if (!(SCALE > 0 && SCALE <= 1)) throw new Error('BENCH_SCALE must be in (0, 1]')
  const stores = await startBenchStores({
    // A request that fails logs why (one line per request otherwise).
    LMS_LOG_LEVEL: 'info',
    // Every request of the run finds the tenant cached: the figures are the reports' own reads.
    LMS_TENANT_CACHE_MS: '3600000',
  })
  try {
    const { runReportsBench, formatReports, reportFigures } = await import('./reports-run.ts')
    const { recordSection } = await import('./results-file.ts')
    const result = await runReportsBench({
      users: USERS,
      perUser: PER_USER,
      courses: COURSES,
      seedConcurrency: SEED_CONCURRENCY,
      targetRcu: TARGET_RCU,
      now: Date.now(),
      day: DAY,
      progress,
      // Partial figures land in the file as they come (a full-scale run takes the best part of an hour).
      onPage: async (partial) => {
        if (SCALE === 1) await recordSection('reports', reportFigures(partial))
      },
    })
    process.stdout.write(`${formatReports(result).join('\n')}\n\n`)
    if (SCALE === 1) process.stdout.write(`${await recordSection('reports', reportFigures(result))}\n`)
    else process.stdout.write(`BENCH_SCALE=${SCALE}: figures not written to bench/results.json\n`)
  } finally {
    await stores.stop()
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(
      `bench/reports: failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    )
    process.exit(1)
  },
)
