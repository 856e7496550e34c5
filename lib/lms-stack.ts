/**
 * The product's stack: the single table, the HTTP API with a wildcard custom domain (one
 * subdomain per tenant), one Lambda per route group from the route table, the worker queues
 * (with dead-letter queues) and the exports bucket.
 */
import {
  type CfnElement,
  CfnOutput,
  Duration,
  RemovalPolicy,
  Stack,
  Validations,
  type StackProps,
} from 'aws-cdk-lib'
import { type CfnStage, DomainName, HttpApi, HttpMethod } from 'aws-cdk-lib/aws-apigatewayv2'
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations'
import { Certificate, CertificateValidation } from 'aws-cdk-lib/aws-certificatemanager'
import { AttributeType, Billing, StreamViewType, TableV2 } from 'aws-cdk-lib/aws-dynamodb'
import { BlockPublicAccess, Bucket, BucketEncryption, type IBucket } from 'aws-cdk-lib/aws-s3'
import { PolicyStatement } from 'aws-cdk-lib/aws-iam'
import { Rule, Schedule } from 'aws-cdk-lib/aws-events'
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets'
import { FilterCriteria, FilterRule, type IFunction, StartingPosition } from 'aws-cdk-lib/aws-lambda'
import { DynamoEventSource } from 'aws-cdk-lib/aws-lambda-event-sources'
import { S3_SERVER_ACCESS_LOGS_USE_BUCKET_POLICY } from 'aws-cdk-lib/cx-api'
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs'
import { Secret } from 'aws-cdk-lib/aws-secretsmanager'
import type { Construct } from 'constructs'
import { join } from 'node:path'
import { fallbackGroup, routeGroups, routes, type RouteGroup } from '../shared/routes.ts'
import { queueNames, tableSchema } from '../shared/store/core/table-schema.ts'
import { EXPORT_FILE_DAYS } from '../shared/domain/reports/export-jobs.ts'
import { addExportWorker } from './export-worker.ts'
import { addMailWorker } from './mail-worker.ts'
import { LmsMonitoring, metricsNamespaceOf, type WatchedFunction } from './monitoring.ts'
import { grantSecretValue, grantSendMessage } from './grants.ts'
import { deadLetteredQueue, QueueWorker } from './queue-worker.ts'
import { cdkProjection } from './table-projection.ts'
import { RouteGroupFunction } from './route-group-function.ts'
import { ScheduledJobs } from './scheduled-jobs.ts'
import { MigrationsFunction } from './migrations-function.ts'

export interface LmsStackProps extends StackProps {
  /** Tenants are served at `<slug>.<serviceHost>`. */
  readonly serviceHost: string
  /** ACM certificate for `*.<serviceHost>`; @default a new DNS-validated certificate */
  readonly certificateArn?: string
  /** The one origin allowed to read the plans catalog cross-origin. */
  readonly corporateOrigin: string
  /** Where the handler modules live; @default <repo>/functions */
  readonly functionsDir?: string
  /**
   * The sender address of every e-mail; its domain (or the address itself) must be a verified SES
   * identity of the account. @default no-reply@<serviceHost>
   */
  readonly mailFrom?: string
  /** Where contact requests are forwarded; unset, they are only kept (lms contact list). */
  readonly operatorEmail?: string
  /**
   * Where alarm notifications are e-mailed (SNS sends a confirmation first).
   * @default no subscription: subscribe to the AlarmTopicArn output
   */
  readonly alarmEmail?: string
  /**
   * The API stage's throttling, for every tenant together (each tenant has its own limits in the
   * app): steady requests a second and the burst above it. Requests over it get 429.
   * @default defaultApiThrottle
   */
  readonly apiThrottle?: ApiThrottle
  /** Maximum concurrent invocations of each queue worker (2 to 1000). @default defaultWorkerConcurrency */
  readonly workerConcurrency?: Partial<Record<WorkerQueue, number>>
}

export interface ApiThrottle {
  readonly rateLimit: number
  readonly burstLimit: number
}

/** Far above a few tenants' traffic, far below what 1,000 concurrent functions could absorb. */
export const defaultApiThrottle: ApiThrottle = { rateLimit: 500, burstLimit: 1000 }

/** The queues that have a worker. */
export type WorkerQueue = 'webhooks' | 'xapi' | 'notifications' | 'exports' | 'replays' | 'ags'

/**
 * Deliveries to customers' endpoints get a few invocations (each works through its batch);
 * e-mail stays under SES's default send rate; exports are few, long and memory-heavy; LTI scores
 * are few, and each warm container keeps its own platform tokens (decision 0050).
 */
export const defaultWorkerConcurrency: Readonly<Record<WorkerQueue, number>> = {
  webhooks: 10,
  xapi: 5,
  notifications: 2,
  exports: 2,
  // Replays page slowly on purpose (decision 0048): two pages at once at most, whatever the backlog.
  replays: 2,
  ags: 2,
}

/**
 * The fields of an API access log line ($context variables of HTTP APIs). No client address: the
 * app keeps only pseudonyms of those (addAddressPseudonyms), and the access log must not undo it.
 */
export const accessLogFormat = {
  requestId: '$context.requestId',
  time: '$context.requestTime',
  host: '$context.domainName',
  method: '$context.httpMethod',
  path: '$context.path',
  routeKey: '$context.routeKey',
  status: '$context.status',
  protocol: '$context.protocol',
  responseLength: '$context.responseLength',
  latencyMs: '$context.responseLatency',
  integrationLatencyMs: '$context.integrationLatency',
  integrationStatus: '$context.integrationStatus',
  integrationError: '$context.integrationErrorMessage',
  error: '$context.error.message',
} as const

/** The queues that have a worker (the others wait for theirs). */
const workerQueues: ReadonlySet<string> = new Set<WorkerQueue>([
  'webhooks',
  'xapi',
  'notifications',
  'exports',
  'replays',
  'ags',
])

/**
 * Route groups served by the static stack (shared/http/static-stack.ts: no key, no window per
 * address, no store): they get neither the table's name nor a grant on it.
 */
const tablelessGroups: ReadonlySet<RouteGroup> = new Set<RouteGroup>(['plans', 'docs', 'fallback'])

/** Route groups that only read the table (every other group with the table writes: counters, rate limits). */
const readOnlyGroups: ReadonlySet<RouteGroup> = new Set<RouteGroup>(['billing'])

export class LmsStack extends Stack {
  readonly table: TableV2
  readonly api: HttpApi
  readonly functions: ReadonlyMap<RouteGroup, RouteGroupFunction>
  /** The queue workers, by queue. */
  readonly workers = new Map<WorkerQueue, QueueWorker>()
  /**
   * Every function of the stack, named as alarms and the dashboard name it (a route group,
   * `outbox-relay`, `webhooks-worker`, `scheduled-jobs`, ...); the local IAM check names them so too.
   */
  private readonly watched: WatchedFunction[] = []
  private relay: RouteGroupFunction | undefined
  readonly monitoring: LmsMonitoring

  /** Every function of the stack by its name (see `watched`). */
  get namedFunctions(): ReadonlyMap<string, IFunction> {
    return new Map(this.watched.map((w) => [w.name, w.fn]))
  }

  /**
   * A secret the retained table's data depends on (values sealed with it, pseudonyms computed with
   * it): retained with the table, so deleting the stack cannot orphan them, and its ARN output.
   */
  private retainedSecret(id: string, description: string, noRotationReason: string): Secret {
    const secret = new Secret(this, id, {
      description,
      generateSecretString: { passwordLength: 64, excludePunctuation: true },
      removalPolicy: RemovalPolicy.RETAIN,
    })
    Validations.of(secret).acknowledge({ id: 'AwsSolutions-SMG4', reason: noRotationReason })
    new CfnOutput(this, `${id}Arn`, { value: secret.secretArn })
    return secret
  }

  /**
   * The outbox relay (stream), its sweeper (schedule), and the webhook and statement workers (each
   * behind its queue). Both workers queue their own next attempts as delayed messages.
   */
  private addWorkers(
    environment: Record<string, string>,
    functionsDir: string,
    mailFrom: string,
    concurrency: Readonly<Record<WorkerQueue, number>>,
  ): void {
    const secret = this.retainedSecret(
      'EncryptionSecret',
      'Key ring for secrets at rest (webhook signing secrets, record-store passwords)',
      'Rotated by the operator (lms secret rotate --name encryption, docs/operations.md): a key is added to the ring, never replaced, and lms secret reseal moves the sealed values; a rotation Lambda would replace it.',
    )
    const queueWorker = (queueName: WorkerQueue, entry: string, ownQueueUrlVariable: string) => {
      const w = new QueueWorker(this, queueName, {
        entry: join(functionsDir, 'workers', entry, 'handler.ts'),
        environment: { ...environment, LMS_ENCRYPTION_SECRET_ARN: secret.secretArn },
        timeout: Duration.seconds(30),
        ownQueueUrlVariable,
        maxConcurrency: concurrency[queueName],
      })
      w.fn.bindTable(this.table, 'readWrite')
      grantSecretValue(secret, w.fn)
      this.workers.set(queueName, w)
      return w
    }
    const webhooks = queueWorker('webhooks', 'webhook-delivery', 'LMS_WEBHOOKS_QUEUE_URL')
    // Statements: the same shape as webhooks (one attempt a message, retries as delayed messages).
    const statements = queueWorker('xapi', 'xapi-delivery', 'LMS_XAPI_QUEUE_URL')

    // The tenant's own settings over the API seal webhook signing secrets and record-store
    // passwords: the one route group that reads the key (decision 0041).
    const settingsApi = this.functions.get('integrations')
    if (settingsApi) {
      settingsApi.addEnvironment('LMS_ENCRYPTION_SECRET_ARN', secret.secretArn)
      grantSecretValue(secret, settingsApi)
    }

    // Replays (decision 0048): the route queues a replay's first page; the replay worker reads the
    // events of each page (the table, read only), queues their deliveries on the webhooks queue
    // and the next page on its own.
    const replays = new QueueWorker(this, 'replays', {
      entry: join(functionsDir, 'workers', 'webhook-replay', 'handler.ts'),
      environment: { ...environment, LMS_WEBHOOKS_QUEUE_URL: webhooks.queue.queueUrl },
      timeout: Duration.seconds(30),
      ownQueueUrlVariable: 'LMS_REPLAYS_QUEUE_URL',
      // One page a message: a page's deliveries are the unit of pacing.
      batchSize: 1,
      maxConcurrency: concurrency.replays,
    })
    replays.fn.bindTable(this.table, 'read')
    grantSendMessage(webhooks.queue, replays.fn)
    this.workers.set('replays', replays)
    if (settingsApi) {
      settingsApi.addEnvironment('LMS_REPLAYS_QUEUE_URL', replays.queue.queueUrl)
      grantSendMessage(replays.queue, settingsApi)
    }

    // Retry-now over the API queues the copy's first attempt itself.
    const deliveriesApi = this.functions.get('webhooks')
    if (deliveriesApi) {
      deliveriesApi.addEnvironment('LMS_WEBHOOKS_QUEUE_URL', webhooks.queue.queueUrl)
      grantSendMessage(webhooks.queue, deliveriesApi)
    }

    // LTI scores (decision 0050): the same shape again; it signs its token requests with the LTI
    // tool key, so it reads that key's secret (addLtiToolKeySecret) and not the encryption secret.
    const scores = new QueueWorker(this, 'ags', {
      entry: join(functionsDir, 'workers', 'ags-score', 'handler.ts'),
      environment,
      timeout: Duration.seconds(30),
      ownQueueUrlVariable: 'LMS_AGS_QUEUE_URL',
      maxConcurrency: concurrency.ags,
    })
    scores.fn.bindTable(this.table, 'readWrite')
    this.workers.set('ags', scores)

    const notifications = addMailWorker(this, {
      environment,
      entry: join(functionsDir, 'workers', 'notification-delivery', 'handler.ts'),
      mailFrom,
      maxConcurrency: concurrency.notifications,
    })
    notifications.worker.fn.bindTable(this.table, 'readWrite')
    this.workers.set('notifications', notifications.worker)

    // The relay and the sweeper fan events out to the delivery and score queues, and notifications to theirs.
    const relayEnv = {
      ...environment,
      LMS_WEBHOOKS_QUEUE_URL: webhooks.queue.queueUrl,
      LMS_XAPI_QUEUE_URL: statements.queue.queueUrl,
      LMS_NOTIFICATIONS_QUEUE_URL: notifications.worker.queue.queueUrl,
      LMS_AGS_QUEUE_URL: scores.queue.queueUrl,
    }
    const fanOutWorker = (name: string) => {
      const fn = new RouteGroupFunction(this, `${name}Function`, {
        entry: join(functionsDir, 'workers', name, 'handler.ts'),
        environment: relayEnv,
        timeout: Duration.seconds(60),
      })
      fn.bindTable(this.table, 'readWrite')
      grantSendMessage(webhooks.queue, fn)
      grantSendMessage(statements.queue, fn)
      grantSendMessage(notifications.worker.queue, fn)
      grantSendMessage(scores.queue, fn)
      this.watched.push({ name, fn })
      return fn
    }

    const relay = fanOutWorker('outbox-relay')
    this.relay = relay
    Validations.of(relay).acknowledge({
      id: 'Serverless-LambdaEventSourceMappingDestination',
      reason:
        'The outbox item is the record: an event whose stream batch is given up on stays pending, and the outbox sweeper (every minute) relays it.',
    })
    Validations.of(relay).acknowledge({
      id: 'Serverless-LambdaDLQ',
      reason: 'Invoked synchronously by its stream event source only; a failed batch is retried, then swept.',
    })
    relay.addEventSource(
      new DynamoEventSource(this.table, {
        startingPosition: StartingPosition.TRIM_HORIZON,
        batchSize: 100,
        bisectBatchOnError: true,
        reportBatchItemFailures: true,
        retryAttempts: 10,
        filters: [
          FilterCriteria.filter({
            eventName: FilterRule.isEqual('INSERT'),
            dynamodb: { NewImage: { type: { S: FilterRule.isEqual('event') } } },
          }),
          FilterCriteria.filter({
            eventName: FilterRule.isEqual('INSERT'),
            dynamodb: { NewImage: { type: { S: FilterRule.isEqual('notification') } } },
          }),
        ],
      }),
    )

    const sweeper = fanOutWorker('outbox-sweeper')
    const sweep = new Rule(this, 'OutboxSweep', {
      schedule: Schedule.rate(Duration.minutes(1)),
      targets: [new LambdaFunction(sweeper)],
    })
    const nextSweep =
      'A sweep that fails is superseded by the next one a minute later (each sweep takes every pending event); failures alarm on the function errors.'
    Validations.of(sweep).acknowledge({ id: 'Serverless-EventBusDLQ', reason: nextSweep })
    Validations.of(sweeper).acknowledge({ id: 'Serverless-LambdaDLQ', reason: nextSweep })
  }

  /**
   * Client addresses are counted under an HMAC pseudonym (the sign-up and contact windows, failed
   * authentications on every keyed route), keyed by a secret of its own: the groups that count read
   * it, and none of them needs the key that opens sealed secrets.
   */
  private addAddressPseudonyms(): void {
    const secret = this.retainedSecret(
      'PseudonymSecret',
      'Key material for the pseudonyms of client addresses (per-address limits)',
      'Keys only per-address counting windows that expire on their own: a new value (docs/operations.md) starts the windows afresh, so scheduled rotation buys nothing.',
    )
    const counting = new Set(routes.filter((r) => r.scope !== null || r.perIp).map((r) => r.group))
    for (const group of counting) {
      const fn = this.functions.get(group)
      if (!fn) continue
      fn.addEnvironment('LMS_PSEUDONYM_SECRET_ARN', secret.secretArn)
      grantSecretValue(secret, fn)
    }
  }

  /**
   * The billing orchestrator's platform secret: generated here, handed to the orchestrator out of
   * band, and readable by the billing group alone (no other group can answer the billing route).
   */
  private addPlatformMetricsSecret(): void {
    const fn = this.functions.get('billing')
    if (!fn) return
    const secret = this.retainedSecret(
      'PlatformMetricsSecret',
      'Bearer secret of the billing orchestrator (GET /api/v1/billing/metrics)',
      'Handed to the billing orchestrator out of band: rotated by the operator (lms secret rotate --name billing, docs/operations.md), the old value accepted for a window while the orchestrator switches.',
    )
    fn.addEnvironment('LMS_PLATFORM_METRICS_SECRET_ARN', secret.secretArn)
    grantSecretValue(secret, fn)
  }

  /**
   * The LTI tool's private signing keys are sealed under a secret of their own, read by the LTI
   * group and the AGS score worker, which signs its token requests (decisions 0020, 0050); the
   * login states and nonces expire through the table's TTL.
   */
  private addLtiToolKeySecret(): void {
    const fn = this.functions.get('lti')
    if (!fn) return
    const secret = this.retainedSecret(
      'LtiToolKeySecret',
      'Key ring that seals the LTI tool private keys at rest',
      'Rotated by the operator (lms secret rotate --name lti-key, docs/operations.md): a key is added to the ring, never replaced, and lms secret reseal moves the sealed keys.',
    )
    const scores = this.workers.get('ags')?.fn
    for (const reader of scores ? [fn, scores] : [fn]) {
      reader.addEnvironment('LMS_LTI_KEY_SECRET_ARN', secret.secretArn)
      grantSecretValue(secret, reader)
    }
  }

  /**
   * The $default stage: JSON access logs (one line a request, the tenant's host included) and the
   * stage-wide throttle. The HTTP API construct makes the stage without these options, so they
   * are set on its CloudFormation resource.
   */
  private configureStage(throttle: ApiThrottle): void {
    const stage = this.api.defaultStage?.node.defaultChild as CfnStage | undefined
    if (!stage) throw new Error('The HTTP API has no default stage')
    const logs = new LogGroup(this, 'ApiAccessLogs', { retention: RetentionDays.ONE_MONTH })
    stage.accessLogSettings = { destinationArn: logs.logGroupArn, format: JSON.stringify(accessLogFormat) }
    stage.defaultRouteSettings = {
      throttlingRateLimit: throttle.rateLimit,
      throttlingBurstLimit: throttle.burstLimit,
    }
  }

  constructor(scope: Construct, id: string, props: LmsStackProps) {
    super(scope, id, props)
    // S3 server access logs are delivered under a bucket policy on the log bucket, not the
    // deprecated log-delivery ACL (CDK's default without this flag).
    this.node.setContext(S3_SERVER_ACCESS_LOGS_USE_BUCKET_POLICY, true)

    this.table = new TableV2(this, 'Table', {
      partitionKey: { name: tableSchema.partitionKey, type: AttributeType.STRING },
      sortKey: { name: tableSchema.sortKey, type: AttributeType.STRING },
      billing: Billing.onDemand(),
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      timeToLiveAttribute: tableSchema.ttlAttribute,
      dynamoStream: StreamViewType.NEW_AND_OLD_IMAGES,
      globalSecondaryIndexes: tableSchema.globalIndexes.map((i) => ({
        indexName: i.name,
        partitionKey: { name: i.pk, type: AttributeType.STRING },
        sortKey: { name: i.sk, type: AttributeType.STRING },
        ...cdkProjection(i.projection),
      })),
      removalPolicy: RemovalPolicy.RETAIN,
      deletionProtection: true,
    })

    // Queues without a worker yet; the workers' queues come with them (addWorkers).
    for (const name of queueNames.filter((n) => !workerQueues.has(n))) {
      // Six times the 30 s the other workers run, until this queue's worker sets its own.
      deadLetteredQueue(this, name, { visibilityTimeout: Duration.seconds(180) })
    }

    // Who read or wrote which object (an export file is learners' data): S3 server access logs.
    const accessLogsBucket = new Bucket(this, 'AccessLogs', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      // Server access logs can only be delivered to a bucket encrypted with S3-managed keys.
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      lifecycleRules: [{ expiration: Duration.days(90) }],
    })
    const exportsBucket = new Bucket(this, 'Exports', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      serverAccessLogsBucket: accessLogsBucket,
      serverAccessLogsPrefix: 'exports/',
      // Files live a few days (the job says when); a dead worker's unfinished upload goes in a day.
      lifecycleRules: [
        {
          expiration: Duration.days(EXPORT_FILE_DAYS),
          abortIncompleteMultipartUploadAfter: Duration.days(1),
        },
      ],
    })
    // Module packages: the operator CLI stands in for the app that uploads them (docs/decisions/0031),
    // with the operator's credentials. Read only through pre-signed URLs; the one function that
    // reaches it is the courses route group, which may delete a deleted module's package (0042).
    const contentBucket = new Bucket(this, 'Content', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      serverAccessLogsBucket: accessLogsBucket,
      serverAccessLogsPrefix: 'content/',
      versioned: true,
      // A re-upload replaces the package; the one it replaced is kept a while for recovery only.
      lifecycleRules: [{ noncurrentVersionExpiration: Duration.days(30) }],
    })
    new CfnOutput(this, 'ContentBucketName', { value: contentBucket.bucketName })
    new CfnOutput(this, 'ExportsBucketName', { value: exportsBucket.bucketName })
    new CfnOutput(this, 'AccessLogsBucketName', { value: accessLogsBucket.bucketName })

    const certificate = props.certificateArn
      ? Certificate.fromCertificateArn(this, 'Certificate', props.certificateArn)
      : new Certificate(this, 'Certificate', {
          domainName: `*.${props.serviceHost}`,
          validation: CertificateValidation.fromDns(),
        })
    const domainName = new DomainName(this, 'TenantDomain', {
      domainName: `*.${props.serviceHost}`,
      certificate,
    })

    // What every function may read; a resource's name comes with the grant on it (bindTable,
    // addExportWorker, the queue and secret wiring), so no function is told of what it cannot reach.
    const environment = {
      // The app's EMF metrics (shared/metrics/), one namespace per stack; lib/monitoring.ts alarms on it.
      LMS_METRICS_NAMESPACE: metricsNamespaceOf(this.stackName),
      LMS_SERVICE_HOST: props.serviceHost,
      LMS_CORPORATE_ORIGIN: props.corporateOrigin,
    }
    const functionsDir = props.functionsDir ?? join(import.meta.dirname, '..', 'functions')
    const functions = new Map<RouteGroup, RouteGroupFunction>()
    for (const group of routeGroups) {
      const fn = new RouteGroupFunction(this, `${group}Function`, {
        entry: join(functionsDir, group, 'handler.ts'),
        environment,
      })
      if (!tablelessGroups.has(group))
        fn.bindTable(this.table, readOnlyGroups.has(group) ? 'read' : 'readWrite')
      Validations.of(fn).acknowledge({
        id: 'Serverless-LambdaDLQ',
        reason:
          'Invoked synchronously by the HTTP API only: the caller gets the error, there is no event to keep.',
      })
      functions.set(group, fn)
      this.watched.push({ name: group, fn })
    }
    this.functions = functions
    const courses = functions.get('courses')
    if (courses) grantPackageRemoval(contentBucket, courses)

    const fallback = functions.get(fallbackGroup)
    this.api = new HttpApi(this, 'Api', {
      defaultDomainMapping: { domainName },
      // The tenant domain is the only way in: its host names the tenant, and the default
      // https://<api-id>.execute-api.<region>.amazonaws.com URL would be a second, unnamed door.
      disableExecuteApiEndpoint: true,
      ...(fallback ? { defaultIntegration: new HttpLambdaIntegration('fallback', fallback) } : {}),
    })
    const integrations = new Map<RouteGroup, HttpLambdaIntegration>()
    for (const route of routes) {
      const fn = functions.get(route.group)
      if (!fn) continue
      let integration = integrations.get(route.group)
      if (!integration) {
        integration = new HttpLambdaIntegration(`${route.group}Integration`, fn)
        integrations.set(route.group, integration)
      }
      this.api.addRoutes({ path: route.path, methods: [HttpMethod[route.method]], integration })
    }
    Validations.of(this.api).acknowledge({
      id: 'AwsSolutions-APIG4',
      reason:
        'Each route authenticates in its function: a tenant API key (hashed lookup, key tenant = host tenant, scope check) or, for the public, LTI and learner routes, none by design; a gateway authorizer would add a second lookup per request.',
    })
    this.configureStage(props.apiThrottle ?? defaultApiThrottle)

    const concurrency = { ...defaultWorkerConcurrency, ...props.workerConcurrency }
    this.addWorkers(environment, functionsDir, props.mailFrom ?? `no-reply@${props.serviceHost}`, concurrency)
    const exportWorker = addExportWorker(this, {
      entry: join(functionsDir, 'workers', 'export-build', 'handler.ts'),
      environment,
      table: this.table,
      bucket: exportsBucket,
      reports: functions.get('reports'),
      maxConcurrency: concurrency.exports,
    })
    this.workers.set('exports', exportWorker)
    // The contact route records its notification to the operators' address.
    const publicFn = functions.get('public')
    if (publicFn && props.operatorEmail) publicFn.addEnvironment('LMS_OPERATOR_EMAIL', props.operatorEmail)
    this.addAddressPseudonyms()
    this.addPlatformMetricsSecret()
    this.addLtiToolKeySecret()
    const jobs = new ScheduledJobs(this, 'ScheduledJobs', { table: this.table, environment, functionsDir })
    const migrations = new MigrationsFunction(this, 'Migrations', {
      table: this.table,
      environment,
      functionsDir,
    })

    for (const [name, worker] of this.workers) this.watched.push({ name: `${name}-worker`, fn: worker.fn })
    this.watched.push({ name: 'scheduled-jobs', fn: jobs.fn })
    this.watched.push({ name: 'migrations', fn: migrations.fn })
    if (!this.relay) throw new Error('The outbox relay is made with the workers')
    this.monitoring = new LmsMonitoring(this, 'Monitoring', {
      namePrefix: this.stackName,
      ...(props.alarmEmail ? { alarmEmail: props.alarmEmail } : {}),
      api: this.api,
      table: this.table,
      functions: this.watched,
      queues: [...this.workers].map(([name, w]) => ({
        name,
        queue: w.queue,
        deadLetterQueue: w.deadLetterQueue,
      })),
      relay: this.relay,
      metricsNamespace: metricsNamespaceOf(this.stackName),
    })

    new CfnOutput(this, 'MigrationsFunctionName', { value: migrations.fn.functionName })
    new CfnOutput(this, 'TableName', { value: this.table.tableName })
    new CfnOutput(this, 'TableArn', { value: this.table.tableArn })
    for (const [name, w] of this.workers) {
      new CfnOutput(this, `${name}QueueUrl`, { value: w.queue.queueUrl })
      new CfnOutput(this, `${name}DeadLetterQueueUrl`, { value: w.deadLetterQueue.queueUrl })
      // A redrive (SQS StartMessageMoveTask) names the dead-letter queue by its ARN.
      new CfnOutput(this, `${name}DeadLetterQueueArn`, { value: w.deadLetterQueue.queueArn })
    }
    new CfnOutput(this, 'AlarmTopicArn', { value: this.monitoring.topic.topicArn })
    const dashboard = this.monitoring.facade.createdDashboard()
    if (dashboard) new CfnOutput(this, 'DashboardName', { value: dashboard.dashboardName })
    new CfnOutput(this, 'TenantUrl', { value: `https://<tenant>.${props.serviceHost}/api/v1` })
    // Where `*.<serviceHost>` points: a CNAME to the target, or a Route 53 alias (target and zone).
    new CfnOutput(this, 'TenantDomainTarget', { value: domainName.regionalDomainName })
    new CfnOutput(this, 'TenantDomainHostedZoneId', { value: domainName.regionalHostedZoneId })
  }
}

const PACKAGE_OBJECTS = 'tenants/*/modules/*/package.zip'

/** A module delete removes its package: delete only, narrowed to package objects. */
function grantPackageRemoval(bucket: IBucket, fn: RouteGroupFunction): void {
  fn.addEnvironment('LMS_CONTENT_BUCKET', bucket.bucketName)
  fn.addToRolePolicy(
    new PolicyStatement({ actions: ['s3:DeleteObject'], resources: [bucket.arnForObjects(PACKAGE_OBJECTS)] }),
  )
  const bucketId = Stack.of(bucket).getLogicalId(bucket.node.defaultChild as CfnElement)
  Validations.of(fn).acknowledge({
    id: `AwsSolutions-IAM5[Resource::<${bucketId}.Arn>/${PACKAGE_OBJECTS}]`,
    reason:
      'Package objects are keyed tenants/<tenant id>/modules/<module id>/package.zip: tenants and modules are made at run time, and the grant is narrowed to deleting package objects.',
  })
}
