/**
 * `npm run bench`: starts its own embedded stores in memory on free ports, points the product's
 * config at them, then (and only then) imports the product's modules and runs the benchmark. Prints
 * the report, then writes its figures to bench/results.json (one section per part of the results,
 * bench/results-file.ts) and prints each beside the committed run's. Asserts nothing, but fails
 * (exit 1) on a bundle over 1 MiB (bench/bundles.ts).
 */
import { startBenchStores } from './bench-stores.ts'
import { figuresOf, recordSection, resultsPath, startResults } from './results-file.ts'

const USERS = 10_000

function progress(step: string): void {
  process.stderr.write(`bench: ${step}...\n`)
}

async function main(): Promise<void> {
  const started = performance.now()
  progress('starting DynamoDB Local and the SQS/S3 emulator in memory')
  const stores = await startBenchStores({
    LMS_TENANT_CACHE_MS: process.env.LMS_TENANT_CACHE_MS?.trim() || '5000',
  })
  try {
    const { runBenchmark } = await import('./benchmark.ts')
    const { formatReport } = await import('./report.ts')
    const results = await runBenchmark({
      users: USERS,
      timingIterations: { users: 300, plans: 1000 },
      coldImportRuns: 9,
      dynamoEndpoint: stores.dynamoEndpoint,
      progress,
    })
    const totalMs = performance.now() - started
    process.stdout.write(`${formatReport(results, totalMs)}\n`)
    await startResults()
    const comparisons = []
    for (const [section, value] of Object.entries({ ...results, run: { totalMs: Math.round(totalMs) } }))
      comparisons.push(await recordSection(section, figuresOf(value)))
    process.stdout.write(
      `\nFigures beside the committed run (git show HEAD:bench/results.json)\n${comparisons.join('\n')}\n` +
        `figures written to ${resultsPath}\n`,
    )
    // A bundle over 1 MiB fails the run, once its figures are written (bench/bundles.ts).
    const { failIfTooLarge } = await import('./bundles.ts')
    failIfTooLarge(results.bundles)
  } finally {
    await stores.stop()
  }
}

main().then(
  // The run is over once the stores are stopped: exit whatever handles the SDK clients leave open.
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(
      `bench: failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    )
    process.exit(1)
  },
)
