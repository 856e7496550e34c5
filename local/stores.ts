/**
 * The embedded stores: DynamoDB Local (a Java child process) and fauxqs (SQS and S3 in-process),
 * plus the table, queues and bucket the product needs, created when missing. Both listen on
 * loopback only: they have no authentication, and whoever reaches them reads every tenant.
 */
import { mkdirSync } from 'node:fs'
import { resolve } from 'node:path'
import type { ChildProcess } from 'node:child_process'
import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb'
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3'
import { CreateQueueCommand, GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs'
import {
  contentBucketName,
  deadLetterSuffix,
  exportsBucketName,
  queueNames,
  tableSchema,
} from '../shared/store/core/table-schema.ts'
import { dynamoProjection } from '../shared/store/core/index-projections.ts'
import { spawnDynamoDbLocal } from './dynamodb-local.ts'
import { startFauxqsOn } from './fauxqs-on-loopback.ts'
import { checkJava } from './java.ts'

/** Where the stores listen; never another address, whatever the gateway's `LMS_HOST` is. */
export const storesHost = '127.0.0.1'

export interface StoreOptions {
  readonly dataDir: string
  readonly dynamoPort: number
  readonly emulatorPort: number
  readonly tableName: string
  readonly region: string
}

export interface RunningStores {
  readonly dynamoEndpoint: string
  readonly emulatorEndpoint: string
  readonly queues: Record<string, { url: string; arn: string }>
  stop(): Promise<void>
}

const credentials = { accessKeyId: 'local', secretAccessKey: 'local' }

/** SIGTERM, then SIGKILL if Java has not exited within 3 s: a stop must not leave the port taken. */
function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 3000)
    child.once('exit', () => {
      clearTimeout(timer)
      resolve()
    })
    child.kill('SIGTERM')
  })
}

/** A data dir made by an older version lacks newer indexes: add them, one at a time. */
async function addMissingIndexes(
  client: DynamoDBClient,
  tableName: string,
  present: readonly string[],
): Promise<void> {
  for (const index of tableSchema.globalIndexes) {
    if (present.includes(index.name)) continue
    await client.send(
      new UpdateTableCommand({
        TableName: tableName,
        AttributeDefinitions: [
          { AttributeName: index.pk, AttributeType: 'S' },
          { AttributeName: index.sk, AttributeType: 'S' },
        ],
        GlobalSecondaryIndexUpdates: [
          {
            Create: {
              IndexName: index.name,
              KeySchema: [
                { AttributeName: index.pk, KeyType: 'HASH' },
                { AttributeName: index.sk, KeyType: 'RANGE' },
              ],
              Projection: dynamoProjection(index.projection),
            },
          },
        ],
      }),
    )
  }
}

export async function ensureTable(client: DynamoDBClient, tableName: string): Promise<void> {
  try {
    const existing = await client.send(new DescribeTableCommand({ TableName: tableName }))
    await addMissingIndexes(
      client,
      tableName,
      existing.Table?.GlobalSecondaryIndexes?.map((i) => i.IndexName ?? '') ?? [],
    )
    return
  } catch (err) {
    if (!(err instanceof Error) || err.name !== 'ResourceNotFoundException') throw err
  }
  // An index may be keyed on the table's own partition key (pos1): each attribute defined once.
  const attrs = [
    ...new Set([
      tableSchema.partitionKey,
      tableSchema.sortKey,
      ...tableSchema.globalIndexes.flatMap((i) => [i.pk, i.sk]),
    ]),
  ]
  await client.send(
    new CreateTableCommand({
      TableName: tableName,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: attrs.map((name) => ({ AttributeName: name, AttributeType: 'S' })),
      KeySchema: [
        { AttributeName: tableSchema.partitionKey, KeyType: 'HASH' },
        { AttributeName: tableSchema.sortKey, KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: tableSchema.globalIndexes.map((i) => ({
        IndexName: i.name,
        KeySchema: [
          { AttributeName: i.pk, KeyType: 'HASH' },
          { AttributeName: i.sk, KeyType: 'RANGE' },
        ],
        Projection: dynamoProjection(i.projection),
      })),
      StreamSpecification: { StreamEnabled: true, StreamViewType: tableSchema.streamView },
    }),
  )
  await client.send(
    new UpdateTimeToLiveCommand({
      TableName: tableName,
      TimeToLiveSpecification: { AttributeName: tableSchema.ttlAttribute, Enabled: true },
    }),
  )
}

async function ensureQueues(sqs: SQSClient): Promise<Record<string, { url: string; arn: string }>> {
  const urls: Record<string, { url: string; arn: string }> = {}
  for (const name of queueNames) {
    const dlq = await sqs.send(new CreateQueueCommand({ QueueName: `lms-${name}${deadLetterSuffix}` }))
    const dlqArn = (
      await sqs.send(new GetQueueAttributesCommand({ QueueUrl: dlq.QueueUrl, AttributeNames: ['QueueArn'] }))
    ).Attributes?.QueueArn
    const queue = await sqs.send(
      new CreateQueueCommand({
        QueueName: `lms-${name}`,
        Attributes: {
          VisibilityTimeout: '180',
          RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: 5 }),
        },
      }),
    )
    const arn = (
      await sqs.send(
        new GetQueueAttributesCommand({ QueueUrl: queue.QueueUrl, AttributeNames: ['QueueArn'] }),
      )
    ).Attributes?.QueueArn
    urls[name] = { url: queue.QueueUrl ?? '', arn: arn ?? '' }
  }
  return urls
}

export async function startStores(options: StoreOptions): Promise<RunningStores> {
  checkJava()
  const inMemory = options.dataDir === ':memory:'
  const dataDir = inMemory ? undefined : resolve(options.dataDir)
  if (dataDir) {
    mkdirSync(resolve(dataDir, 'dynamodb'), { recursive: true })
    mkdirSync(resolve(dataDir, 'fauxqs'), { recursive: true })
  }
  const dynamoLocal = await spawnDynamoDbLocal({
    port: options.dynamoPort,
    host: storesHost,
    dbPath: dataDir ? resolve(dataDir, 'dynamodb') : undefined,
  })
  const dynamoChild = dynamoLocal.child
  // However this process ends (a forced exit included), DynamoDB Local does not outlive it holding
  // the port; only a SIGKILL of this process, which runs nothing, leaves it behind.
  process.once('exit', () => {
    if (dynamoChild.exitCode === null && dynamoChild.signalCode === null) dynamoChild.kill('SIGKILL')
  })
  const emulator = await startFauxqsOn(storesHost, {
    port: options.emulatorPort,
    logger: false,
    ...(dataDir ? { dataDir: resolve(dataDir, 'fauxqs') } : {}),
  }).catch(async (err: unknown) => {
    await stopChild(dynamoChild)
    throw err
  })
  const dynamoEndpoint = `http://${storesHost}:${options.dynamoPort}`
  const emulatorEndpoint = `http://${storesHost}:${emulator.port}`
  const stop = async () => {
    await Promise.all([stopChild(dynamoChild), emulator.stop()])
  }
  try {
    const dynamo = new DynamoDBClient({ region: options.region, endpoint: dynamoEndpoint, credentials })
    await dynamoLocal.listening
    await ensureTable(dynamo, options.tableName)
    const sqs = new SQSClient({ region: options.region, endpoint: emulatorEndpoint, credentials })
    const queues = await ensureQueues(sqs)
    const s3 = new S3Client({
      region: options.region,
      endpoint: emulatorEndpoint,
      credentials,
      forcePathStyle: true,
    })
    for (const bucket of [exportsBucketName, contentBucketName]) {
      try {
        await s3.send(new CreateBucketCommand({ Bucket: bucket }))
      } catch (err) {
        if (!(err instanceof Error) || !/BucketAlready/.test(err.name)) throw err
      }
    }
    return { dynamoEndpoint, emulatorEndpoint, queues, stop }
  } catch (err) {
    await stop()
    throw err
  }
}
