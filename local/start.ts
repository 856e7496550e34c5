/**
 * `npm start`: the embedded stack. DynamoDB Local and the SQS/S3 emulator, the table, queues and
 * bucket, then the local gateway serving the real handler modules. On first start with an empty
 * data dir it creates the demo tenant with sample data (not with LMS_DEMO_DATA=off) and prints its
 * admin key (shown once).
 */
import { pointAtEmbeddedStores } from './aws-environment.ts'
import { publishStackSecrets, secretFilesEnv } from './stack-secrets.ts'
import { startStores } from './stores.ts'
import { synthesizedStack } from './iam/policy-cache.ts'
import { contentBucketName, exportsBucketName } from '../shared/store/core/table-schema.ts'

function env(name: string, fallback: string): string {
  const v = process.env[name]?.trim()
  return v ? v : fallback
}

function port(name: string, fallback: number): number {
  const raw = env(name, String(fallback))
  const n = Number(raw)
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new Error(`${name} must be a port number`)
  return n
}

/**
 * SIGINT/SIGTERM stop what has started so far, from the first moment: a signal that came before
 * the handlers would end the process outright and leave DynamoDB Local running. The stop is given
 * 4 s, then the process exits anyway (DynamoDB Local is killed on exit, see stores.ts).
 */
let stopStarted: () => Promise<void> = async () => undefined
let stopping = false
function shutdown(): void {
  if (stopping) return
  stopping = true
  setTimeout(() => process.exit(0), 4000).unref()
  void stopStarted().finally(() => process.exit(0))
}
process.on('SIGINT', shutdown)
process.on('SIGTERM', shutdown)

async function main(): Promise<void> {
  const region = env('AWS_REGION', 'us-east-1')
  const tableName = env('LMS_TABLE_NAME', 'lms')
  const dataDir = env('LMS_DATA_DIR', '.lms-data')
  const dynamoPort = port('LMS_DYNAMODB_PORT', 8000)
  // The template's grants are read (from the cache, or synthesized in a child) while the stores start.
  const iamCheck = env('LMS_IAM_CHECK', 'on') === 'off' ? undefined : synthesizedStack()
  iamCheck?.catch(() => undefined)
  const stores = await startStores({
    dataDir,
    dynamoPort,
    emulatorPort: port('LMS_EMULATOR_PORT', 4566),
    tableName,
    region,
  })
  stopStarted = () => stores.stop()
  // The handlers read their configuration at import: point them at the stores before importing.
  pointAtEmbeddedStores(stores.dynamoEndpoint, stores.emulatorEndpoint)
  process.env.LMS_CONTENT_BUCKET = contentBucketName
  process.env.LMS_EXPORTS_BUCKET = exportsBucketName
  process.env.LMS_TABLE_NAME = tableName
  process.env.AWS_REGION = region
  // The CLI seals and opens secrets with this very ring (and rotates it and the billing secret):
  // it finds the files by the DynamoDB port it uses.
  const secrets = publishStackSecrets(dataDir, dynamoPort)
  Object.assign(process.env, secretFilesEnv(secrets))
  process.on('exit', secrets.withdraw)
  const webhooks = stores.queues.webhooks
  if (webhooks) process.env.LMS_WEBHOOKS_QUEUE_URL = webhooks.url
  const replays = stores.queues.replays
  if (replays) process.env.LMS_REPLAYS_QUEUE_URL = replays.url
  const xapi = stores.queues.xapi
  if (xapi) process.env.LMS_XAPI_QUEUE_URL = xapi.url
  const notifications = stores.queues.notifications
  if (notifications) process.env.LMS_NOTIFICATIONS_QUEUE_URL = notifications.url
  const exportsQueue = stores.queues.exports
  if (exportsQueue) process.env.LMS_EXPORTS_QUEUE_URL = exportsQueue.url
  const agsQueue = stores.queues.ags
  if (agsQueue) process.env.LMS_AGS_QUEUE_URL = agsQueue.url

  if (iamCheck) {
    const { startLocalIamCheck } = await import('./iam/local-iam-check.ts')
    startLocalIamCheck({
      stack: (await iamCheck).stack,
      region,
      tableName,
      ...(process.env.LMS_IAM_RECORD ? { recordFile: process.env.LMS_IAM_RECORD } : {}),
    })
  }

  const { ensureDemoTenant } = await import('./demo-tenant.ts')
  const { startGateway } = await import('./gateway.ts')
  const { startWorkers } = await import('./workers.ts')
  const workers = startWorkers({ stores, region, tableName, relay: env('LMS_RELAY', 'on') !== 'off' })
  stopStarted = () => workers.stop().then(() => stores.stop())
  const demo = await ensureDemoTenant({ sampleData: env('LMS_DEMO_DATA', 'on') !== 'off' })
  const { server, url } = await startGateway(port('PORT', 3000), env('LMS_HOST', '127.0.0.1'))
  stopStarted = () => {
    server.closeAllConnections()
    server.close()
    return workers.stop().then(() => stores.stop())
  }
  const serviceHost = env('LMS_SERVICE_HOST', 'localhost')
  if (demo) {
    process.stdout.write(
      `${JSON.stringify({ msg: 'demo tenant created', tenant: demo.slug, host: `${demo.slug}.${serviceHost}`, admin_api_key: demo.key, sample_data: demo.sampleData ?? null })}\n`,
    )
    process.stdout.write(`demo tenant: ${demo.slug}  admin API key (shown once): ${demo.key}\n`)
  }
  process.stdout.write(
    `${JSON.stringify({ msg: 'ready', url, dynamodb: stores.dynamoEndpoint, emulator: stores.emulatorEndpoint, ...queueUrls(stores.queues) })}\n`,
  )
  process.stdout.write(`lms listening on ${url} (tenants at <slug>.${serviceHost})\n`)
}

main().catch((err: unknown) => {
  process.stderr.write(`lms: could not start: ${err instanceof Error ? err.message : String(err)}\n`)
  process.exit(1)
})

/** Every worker queue's URL on the ready line, as `<name>Queue` (e.g. `webhooksQueue`, `agsQueue`). */
function queueUrls(queues: Readonly<Record<string, { url: string }>>): Record<string, string> {
  return Object.fromEntries(Object.entries(queues).map(([name, q]) => [`${name}Queue`, q.url]))
}
