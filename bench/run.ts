/**
 * `npm run bench`: starts its own embedded stores in memory on free ports, points the product's
 * config at them, then (and only then) imports the product's modules and runs the benchmark. Prints
 * the report and writes the same figures to bench/results.json. Asserts nothing.
 */
import { writeFile } from 'node:fs/promises'
import { resolve } from 'node:path'
import { format, resolveConfig } from 'prettier'
import { startStores } from '../local/stores.ts'
import { freePort } from '../local/free-port.ts'

const USERS = 10_000
const REGION = 'us-east-1'
const TABLE = 'lms'

function progress(step: string): void {
  process.stderr.write(`bench: ${step}...\n`)
}

async function main(): Promise<void> {
  const started = performance.now()
  progress('starting DynamoDB Local and the SQS/S3 emulator in memory')
  const stores = await startStores({
    dataDir: ':memory:',
    dynamoPort: await freePort(),
    emulatorPort: await freePort(),
    tableName: TABLE,
    region: REGION,
  })
  try {
    // Config is read when shared/config.ts is first imported: set everything before that.
    process.env.LMS_DYNAMODB_ENDPOINT = stores.dynamoEndpoint
    process.env.LMS_SQS_ENDPOINT = stores.emulatorEndpoint
    process.env.LMS_S3_ENDPOINT = stores.emulatorEndpoint
    process.env.LMS_TABLE_NAME = TABLE
    process.env.AWS_REGION = REGION
    process.env.LMS_LOG_LEVEL = 'silent'
    process.env.LMS_TENANT_CACHE_MS = process.env.LMS_TENANT_CACHE_MS?.trim() || '5000'

    const { runBenchmark } = await import('./benchmark.ts')
    const { formatReport } = await import('./report.ts')
    const results = await runBenchmark({
      users: USERS,
      timingIterations: { users: 300, plans: 1000 },
      coldImportRuns: 5,
      dynamoEndpoint: stores.dynamoEndpoint,
      progress,
    })
    const totalMs = performance.now() - started
    const file = resolve(import.meta.dirname, 'results.json')
    const json = JSON.stringify({
      generatedAt: new Date().toISOString(),
      totalMs: Math.round(totalMs),
      ...results,
    })
    // Formatted as the repository formats JSON, so `prettier --check .` accepts the file.
    await writeFile(file, await format(json, { ...(await resolveConfig(file)), filepath: file }))
    process.stdout.write(`${formatReport(results, totalMs)}\nfigures written to ${file}\n`)
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
