/**
 * Report exports in AWS (docs/decisions/0018): the export worker behind the `exports` queue (and
 * its dead-letter queue), writing files into the exports bucket under `tenants/<id>/exports/`,
 * and the reports route group that queues jobs and signs download URLs. Each gets only what it
 * uses: the worker puts (and aborts multipart uploads of) export objects; the reports group reads
 * them (a pre-signed URL carries its signer's rights) and sends to the exports queue; neither
 * lists, deletes or reaches another prefix.
 */
import { type CfnElement, Duration, Stack, Validations } from 'aws-cdk-lib'
import type { ITable } from 'aws-cdk-lib/aws-dynamodb'
import { PolicyStatement } from 'aws-cdk-lib/aws-iam'
import type { IBucket } from 'aws-cdk-lib/aws-s3'
import type { Construct } from 'constructs'
import { EXPORT_CLAIM_LEASE_SECONDS } from '../shared/domain/reports/export-jobs.ts'
import { EXPORT_WORKER_HEAP_FLAGS } from './export-worker-heap.ts'
import { grantSendMessage } from './grants.ts'
import { QueueWorker } from './queue-worker.ts'
import type { RouteGroupFunction } from './route-group-function.ts'

/** Where every export object lives: the tenant's prefix, then `exports/`. */
export const EXPORT_OBJECTS = 'tenants/*/exports/*'

/**
 * Four minutes: far above the bench's 50,000-row files (seconds), and below the job's claim lease,
 * so a live worker never loses its claim (Lambda ends it first) while a dead one's is taken over
 * by the next delivery, which SQS hands out only after six times this.
 */
export const EXPORT_WORKER_TIMEOUT = Duration.minutes(4)
if (EXPORT_WORKER_TIMEOUT.toSeconds() >= EXPORT_CLAIM_LEASE_SECONDS) {
  throw new Error('The export worker must time out before its claim lease runs out')
}

export interface ExportWorkerProps {
  readonly entry: string
  readonly environment: Record<string, string>
  readonly table: ITable
  readonly bucket: IBucket
  /** The route group that queues jobs and signs their download URLs. */
  readonly reports: RouteGroupFunction | undefined
  /** The worker's maximum concurrency (QueueWorkerProps.maxConcurrency). */
  readonly maxConcurrency?: number
}

/** The wildcard of EXPORT_OBJECTS, excused on the function whose policy holds it. */
function acknowledgeExportObjects(bucket: IBucket, fn: RouteGroupFunction): void {
  const bucketId = Stack.of(bucket).getLogicalId(bucket.node.defaultChild as CfnElement)
  Validations.of(fn).acknowledge({
    id: `AwsSolutions-IAM5[Resource::<${bucketId}.Arn>/${EXPORT_OBJECTS}]`,
    reason:
      'Export objects are keyed tenants/<tenant id>/exports/<file>: tenants are made at run time, and the grant is already narrowed to export objects and to put (worker) or get (reports).',
  })
}

export function addExportWorker(scope: Construct, props: ExportWorkerProps): QueueWorker {
  const worker = new QueueWorker(scope, 'exports', {
    entry: props.entry,
    environment: {
      ...props.environment,
      LMS_EXPORTS_BUCKET: props.bucket.bucketName,
      NODE_OPTIONS: ['--enable-source-maps', ...EXPORT_WORKER_HEAP_FLAGS].join(' '),
    },
    timeout: EXPORT_WORKER_TIMEOUT,
    // One job an invocation: each has the whole timeout to itself.
    batchSize: 1,
    ...(props.maxConcurrency === undefined ? {} : { maxConcurrency: props.maxConcurrency }),
  })
  worker.fn.bindTable(props.table, 'readWrite')
  worker.fn.addToRolePolicy(
    new PolicyStatement({
      actions: ['s3:PutObject', 's3:AbortMultipartUpload'],
      resources: [props.bucket.arnForObjects(EXPORT_OBJECTS)],
    }),
  )
  acknowledgeExportObjects(props.bucket, worker.fn)
  const reports = props.reports
  if (reports) {
    reports.addEnvironment('LMS_EXPORTS_QUEUE_URL', worker.queue.queueUrl)
    reports.addEnvironment('LMS_EXPORTS_BUCKET', props.bucket.bucketName)
    grantSendMessage(worker.queue, reports)
    reports.addToRolePolicy(
      new PolicyStatement({
        actions: ['s3:GetObject'],
        resources: [props.bucket.arnForObjects(EXPORT_OBJECTS)],
      }),
    )
    acknowledgeExportObjects(props.bucket, reports)
  }
  return worker
}
