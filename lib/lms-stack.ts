/**
 * The product's stack: the single table, the HTTP API with a wildcard custom domain (one
 * subdomain per tenant), one Lambda per route group from the route table, the worker queues
 * (with dead-letter queues) and the exports bucket.
 */
import { CfnOutput, Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib'
import { DomainName, HttpApi, HttpMethod } from 'aws-cdk-lib/aws-apigatewayv2'
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations'
import { Certificate, CertificateValidation } from 'aws-cdk-lib/aws-certificatemanager'
import { AttributeType, Billing, StreamViewType, TableV2 } from 'aws-cdk-lib/aws-dynamodb'
import { BlockPublicAccess, Bucket, BucketEncryption } from 'aws-cdk-lib/aws-s3'
import { Rule, Schedule } from 'aws-cdk-lib/aws-events'
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets'
import { FilterCriteria, FilterRule, StartingPosition } from 'aws-cdk-lib/aws-lambda'
import { DynamoEventSource } from 'aws-cdk-lib/aws-lambda-event-sources'
import { Secret } from 'aws-cdk-lib/aws-secretsmanager'
import type { Construct } from 'constructs'
import { join } from 'node:path'
import { fallbackGroup, routeGroups, routes, type RouteGroup } from '../shared/routes.ts'
import { queueNames, tableSchema } from '../shared/store/table-schema.ts'
import { EXPORT_FILE_DAYS } from '../shared/domain/reports/export-jobs.ts'
import { addExportWorker } from './export-worker.ts'
import { addMailWorker } from './mail-worker.ts'
import { deadLetteredQueue, QueueWorker } from './queue-worker.ts'
import { cdkProjection } from './table-projection.ts'
import { RouteGroupFunction } from './route-group-function.ts'
import { ScheduledJobs } from './scheduled-jobs.ts'

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
}

/** The queues that have a worker (the others wait for theirs). */
const workerQueues: ReadonlySet<string> = new Set(['webhooks', 'xapi', 'notifications', 'exports'])

/** Route groups that only read the table (everything else writes: counters, rate limits). */
const readOnlyGroups: ReadonlySet<RouteGroup> = new Set<RouteGroup>(['plans', 'docs', 'fallback', 'billing'])

export class LmsStack extends Stack {
  readonly table: TableV2
  readonly api: HttpApi
  readonly functions: ReadonlyMap<RouteGroup, RouteGroupFunction>

  /**
   * The outbox relay (stream), its sweeper (schedule), and the webhook and statement workers (each
   * behind its queue). Both workers queue their own next attempts as delayed messages.
   */
  private addWorkers(environment: Record<string, string>, functionsDir: string, mailFrom: string): void {
    const secret = new Secret(this, 'EncryptionSecret', {
      description: 'Key material for secrets at rest (webhook signing secrets, record-store passwords)',
      generateSecretString: { passwordLength: 64, excludePunctuation: true },
    })
    const queueWorker = (queueName: string, entry: string, ownQueueUrlVariable: string) => {
      const w = new QueueWorker(this, queueName, {
        entry: join(functionsDir, 'workers', entry, 'handler.ts'),
        environment: { ...environment, LMS_ENCRYPTION_SECRET_ARN: secret.secretArn },
        timeout: Duration.seconds(30),
        ownQueueUrlVariable,
      })
      w.fn.bindTable(this.table, 'readWrite')
      secret.grantRead(w.fn)
      return w
    }
    const webhooks = queueWorker('webhooks', 'webhook-delivery', 'LMS_WEBHOOKS_QUEUE_URL')
    // Statements: the same shape as webhooks (one attempt a message, retries as delayed messages).
    const statements = queueWorker('xapi', 'xapi-delivery', 'LMS_XAPI_QUEUE_URL')

    // Retry-now over the API queues the copy's first attempt itself.
    const deliveriesApi = this.functions.get('webhooks')
    if (deliveriesApi) {
      deliveriesApi.addEnvironment('LMS_WEBHOOKS_QUEUE_URL', webhooks.queue.queueUrl)
      webhooks.queue.grantSendMessages(deliveriesApi)
    }

    const notifications = addMailWorker(this, {
      environment,
      entry: join(functionsDir, 'workers', 'notification-delivery', 'handler.ts'),
      mailFrom,
    })
    notifications.worker.fn.bindTable(this.table, 'readWrite')

    // The relay and the sweeper fan events out to both queues, and notifications to theirs.
    const relayEnv = {
      ...environment,
      LMS_WEBHOOKS_QUEUE_URL: webhooks.queue.queueUrl,
      LMS_XAPI_QUEUE_URL: statements.queue.queueUrl,
      LMS_NOTIFICATIONS_QUEUE_URL: notifications.worker.queue.queueUrl,
    }
    const fanOutWorker = (name: string) => {
      const fn = new RouteGroupFunction(this, `${name}Function`, {
        entry: join(functionsDir, 'workers', name, 'handler.ts'),
        environment: relayEnv,
        timeout: Duration.seconds(60),
      })
      fn.bindTable(this.table, 'readWrite')
      webhooks.queue.grantSendMessages(fn)
      statements.queue.grantSendMessages(fn)
      notifications.worker.queue.grantSendMessages(fn)
      return fn
    }

    const relay = fanOutWorker('outbox-relay')
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
    new Rule(this, 'OutboxSweep', {
      schedule: Schedule.rate(Duration.minutes(1)),
      targets: [new LambdaFunction(sweeper)],
    })
  }

  /**
   * Client addresses are counted under an HMAC pseudonym (the sign-up and contact windows, failed
   * authentications on every keyed route), keyed by a secret of its own: the groups that count read
   * it, and none of them needs the key that opens sealed secrets.
   */
  private addAddressPseudonyms(): void {
    const secret = new Secret(this, 'PseudonymSecret', {
      description: 'Key material for the pseudonyms of client addresses (per-address limits)',
      generateSecretString: { passwordLength: 64, excludePunctuation: true },
    })
    const counting = new Set(routes.filter((r) => r.scope !== null || r.perIp).map((r) => r.group))
    for (const group of counting) {
      const fn = this.functions.get(group)
      if (!fn) continue
      fn.addEnvironment('LMS_PSEUDONYM_SECRET_ARN', secret.secretArn)
      secret.grantRead(fn)
    }
  }

  /**
   * The billing orchestrator's platform secret: generated here, handed to the orchestrator out of
   * band, and readable by the billing group alone (no other group can answer the billing route).
   */
  private addPlatformMetricsSecret(): void {
    const fn = this.functions.get('billing')
    if (!fn) return
    const secret = new Secret(this, 'PlatformMetricsSecret', {
      description: 'Bearer secret of the billing orchestrator (GET /api/v1/billing/metrics)',
      generateSecretString: { passwordLength: 64, excludePunctuation: true },
    })
    fn.addEnvironment('LMS_PLATFORM_METRICS_SECRET_ARN', secret.secretArn)
    secret.grantRead(fn)
    new CfnOutput(this, 'PlatformMetricsSecretArn', { value: secret.secretArn })
  }

  /**
   * The LTI tool's private signing keys are sealed under a secret of their own, read by the LTI
   * group alone (decision 0020); the login states and nonces expire through the table's TTL.
   */
  private addLtiToolKeySecret(): void {
    const fn = this.functions.get('lti')
    if (!fn) return
    const secret = new Secret(this, 'LtiToolKeySecret', {
      description: 'Key material that seals the LTI tool private keys at rest',
      generateSecretString: { passwordLength: 64, excludePunctuation: true },
    })
    fn.addEnvironment('LMS_LTI_KEY_SECRET_ARN', secret.secretArn)
    secret.grantRead(fn)
  }

  constructor(scope: Construct, id: string, props: LmsStackProps) {
    super(scope, id, props)

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

    const exportsBucket = new Bucket(this, 'Exports', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      // Files live a few days (the job says when); a dead worker's unfinished upload goes in a day.
      lifecycleRules: [
        {
          expiration: Duration.days(EXPORT_FILE_DAYS),
          abortIncompleteMultipartUploadAfter: Duration.days(1),
        },
      ],
    })
    // Module packages: written by the app's upload, read only through pre-signed URLs.
    const contentBucket = new Bucket(this, 'Content', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      versioned: true,
      // A re-upload replaces the package; the one it replaced is kept a while for recovery only.
      lifecycleRules: [{ noncurrentVersionExpiration: Duration.days(30) }],
    })
    new CfnOutput(this, 'ContentBucketName', { value: contentBucket.bucketName })

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

    const environment = {
      LMS_TABLE_NAME: this.table.tableName,
      LMS_SERVICE_HOST: props.serviceHost,
      LMS_CORPORATE_ORIGIN: props.corporateOrigin,
      LMS_EXPORTS_BUCKET: exportsBucket.bucketName,
    }
    const functionsDir = props.functionsDir ?? join(import.meta.dirname, '..', 'functions')
    const functions = new Map<RouteGroup, RouteGroupFunction>()
    for (const group of routeGroups) {
      const fn = new RouteGroupFunction(this, `${group}Function`, {
        entry: join(functionsDir, group, 'handler.ts'),
        environment,
      })
      fn.bindTable(this.table, readOnlyGroups.has(group) ? 'read' : 'readWrite')
      functions.set(group, fn)
    }
    this.functions = functions

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

    this.addWorkers(environment, functionsDir, props.mailFrom ?? `no-reply@${props.serviceHost}`)
    addExportWorker(this, {
      entry: join(functionsDir, 'workers', 'export-build', 'handler.ts'),
      environment,
      table: this.table,
      bucket: exportsBucket,
      reports: functions.get('reports'),
    })
    // The contact route records its notification to the operators' address.
    const publicFn = functions.get('public')
    if (publicFn && props.operatorEmail) publicFn.addEnvironment('LMS_OPERATOR_EMAIL', props.operatorEmail)
    this.addAddressPseudonyms()
    this.addPlatformMetricsSecret()
    this.addLtiToolKeySecret()
    new ScheduledJobs(this, 'ScheduledJobs', { table: this.table, environment, functionsDir })

    new CfnOutput(this, 'TableName', { value: this.table.tableName })
    new CfnOutput(this, 'TenantUrl', { value: `https://<tenant>.${props.serviceHost}/api/v1` })
    new CfnOutput(this, 'TenantDomainTarget', { value: domainName.regionalDomainName })
  }
}
