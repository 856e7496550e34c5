/**
 * The stores every bench runs on: DynamoDB Local and the SQS/S3 emulator on free ports (in memory
 * unless a data directory is given), with the settings the product's config reads pointed at them.
 * Config is read when shared/config.ts is first imported: start these before importing it.
 */
import { pointAtEmbeddedStores } from '../local/aws-environment.ts'
import { freePort } from '../local/free-port.ts'
import { startStores, type RunningStores } from '../local/stores.ts'

export const BENCH_REGION = 'us-east-1'
export const BENCH_TABLE = 'lms'

/** `settings` are set after the stores' own (log level, tenant cache, queue URLs, ...). */
export async function startBenchStores(
  settings: Record<string, string> = {},
  dataDir = ':memory:',
): Promise<RunningStores> {
  const stores = await startStores({
    dataDir,
    dynamoPort: await freePort(),
    emulatorPort: await freePort(),
    tableName: BENCH_TABLE,
    region: BENCH_REGION,
  })
  pointAtEmbeddedStores(stores.dynamoEndpoint, stores.emulatorEndpoint)
  Object.assign(process.env, {
    LMS_TABLE_NAME: BENCH_TABLE,
    AWS_REGION: BENCH_REGION,
    LMS_LOG_LEVEL: 'silent',
    ...settings,
  })
  return stores
}
