/**
 * The one place that reads the environment. Read once at module load (cold start),
 * validated, and passed down; nothing else touches `process.env`.
 */

function str(name: string, fallback: string): string {
  const raw = process.env[name]?.trim()
  return raw ? raw : fallback
}

function optional(name: string): string | undefined {
  const raw = process.env[name]?.trim()
  return raw ? raw : undefined
}

function int(name: string, fallback: number): number {
  const raw = process.env[name]?.trim()
  if (!raw) return fallback
  const n = Number(raw)
  if (!Number.isInteger(n) || n < 0)
    throw new Error(`Environment variable ${name} must be a non-negative integer`)
  return n
}

export interface Config {
  readonly tableName: string
  readonly region: string
  /**
   * A floor under every AWS call's time limit (shared/aws/settings.ts), for emulators on a busy
   * machine; unset in AWS. Where calls go is the SDK's own `AWS_ENDPOINT_URL*` (only s3PathStyle looks).
   */
  readonly awsRequestTimeoutMs: number | undefined
  /**
   * S3 addressed by path (`<endpoint>/<bucket>/<key>`): set when an S3 endpoint is configured (an
   * emulator or LocalStack has no DNS for virtual-hosted buckets); AWS uses virtual-hosted names.
   */
  readonly s3PathStyle: boolean
  /** Module packages; unset where nothing uploads or downloads them. */
  readonly contentBucket: string | undefined
  /** Tenants are reached at `<slug>.<serviceHost>`. */
  readonly serviceHost: string
  /**
   * The scheme of the tenants' own URLs (`<scheme>://<slug>.<serviceHost>`), which redirects are
   * built from (never from a request header such as X-Forwarded-Proto): LMS_PUBLIC_SCHEME, else
   * http for the local stack's `localhost` and https everywhere else.
   */
  readonly publicScheme: 'http' | 'https'
  /** The one origin allowed to read the public plans catalog cross-origin. */
  readonly corporateOrigin: string
  /** How long a Lambda container may reuse a tenant record it has read (keys are never cached). */
  readonly tenantCacheMs: number
  readonly logLevel: 'debug' | 'info' | 'silent'
  /**
   * The CloudWatch namespace of the app's metrics (shared/metrics/): the stack sets `lms/<stack>`,
   * so two stacks in one account keep their figures apart.
   */
  readonly metricsNamespace: string
  /**
   * Lets webhook and record-store targets on loopback through the SSRF guard (local and test use).
   * Never true inside Lambda, whatever the environment says: the deployed stack cannot turn it on.
   */
  readonly allowLoopbackTargets: boolean
  /** AES-256-GCM key for secrets at rest (base64, 32 bytes); undefined where none is configured. */
  readonly encryptionKey: Buffer | undefined
  /**
   * Locally: the file holding the encryption key ring (shared/crypto/key-ring.ts), which the stack
   * and its `lms` commands share; it wins over encryptionKey.
   */
  readonly encryptionKeyRingFile: string | undefined
  /** In AWS: the Secrets Manager secret holding the encryption key ring (read at first use). */
  readonly encryptionSecretArn: string | undefined
  /**
   * How long a secret read from Secrets Manager or a local secret file is used before it is read
   * again (LMS_SECRET_REFRESH_MINUTES, default 5): a rotation reaches warm containers this fast.
   */
  readonly secretRefreshMs: number
  /**
   * In AWS: the secret that keys the pseudonyms of client addresses (read once, at the first
   * address counted). Unset locally, where they derive from the encryption key.
   */
  readonly pseudonymSecretArn: string | undefined
  /**
   * In AWS: the secret that keys the sealing of the LTI tool's private keys (read once, at first
   * use), so the LTI group never holds the key of the other secrets at rest. Unset locally, where
   * that key derives from the encryption key.
   */
  readonly ltiKeySecretArn: string | undefined
  /** Seconds before webhook attempts 2..5 (the spec's 30 s, 1, 2, 4 min; shortened in tests). */
  readonly webhookRetryDelays: readonly number[]
  readonly webhookTimeoutMs: number
  readonly webhooksQueueUrl: string | undefined
  /** The replay pages' queue (decision 0048). */
  readonly webhookReplayQueueUrl: string | undefined
  /** Outbox items one replay page reads, and the seconds before the next page: the replay's pace. */
  readonly webhookReplayPageSize: number
  readonly webhookReplayPageDelaySeconds: number
  /** Seconds before statement attempts 2..5 (the spec's 30 s, 1, 2, 4 min; shortened in tests). */
  readonly xapiRetryDelays: readonly number[]
  readonly xapiTimeoutMs: number
  readonly xapiQueueUrl: string | undefined
  /** Seconds before AGS score attempts 2..5 (decision 0050; shortened in tests). */
  readonly agsRetryDelays: readonly number[]
  readonly agsQueueUrl: string | undefined
  /** How old an unrelayed outbox event must be before the sweeper relays it (the stream's backstop). */
  readonly outboxSweepAfterMs: number
  /** The billing orchestrator's secret (local); unset with no ARN either: the billing route answers 401. */
  readonly platformMetricsSecret: string | undefined
  /** Locally: a file holding it, which `lms secret rotate --name billing` rewrites; wins over the value. */
  readonly platformMetricsSecretFile: string | undefined
  /** In AWS: the Secrets Manager secret holding it (read at the first billing request, then refreshed). */
  readonly platformMetricsSecretArn: string | undefined
  /** Notifications to render and send (the relay fills it, the notifications worker empties it). */
  readonly notificationsQueueUrl: string | undefined
  /** How e-mail leaves: Amazon SES v2 in AWS, or the local sink `lms mail list` reads. */
  readonly mailTransport: 'ses' | 'sink'
  /** The sender address, a verified SES identity in AWS. */
  readonly mailFrom: string
  /** The SES configuration set every message is sent with (event publishing, suppression). */
  readonly sesConfigurationSet: string | undefined
  /** Where contact requests are forwarded; unset, they are only kept for `lms contact list`. */
  readonly operatorEmail: string | undefined
  /** Report export files (private; pre-signed GET URLs only); unset where nothing exports. */
  readonly exportsBucket: string | undefined
  /** Export jobs to build (the POST queues one message per job, the export worker empties it). */
  readonly exportsQueueUrl: string | undefined
  /**
   * Rows an export holds at most (document 001: 50,000); a larger result is cut there and the job
   * says `truncated` (decision 0018). Lowered only by tests that build a job in their own process.
   */
  readonly exportRowCap: number
  /**
   * The migration runner's capacity budgets, units per second (0: no limit): what `lms migrate run`
   * and the migrations Lambda keep a backfill's Scan and writes to, on average (decision 0033).
   */
  readonly migrationMaxRcuPerSecond: number
  readonly migrationMaxWcuPerSecond: number
}

function delays(name: string, fallback: readonly number[]): readonly number[] {
  const raw = process.env[name]?.trim()
  if (!raw) return fallback
  const list = raw.split(',').map((x) => Number(x.trim()))
  if (list.length !== fallback.length || list.some((n) => !Number.isInteger(n) || n < 0 || n > 900)) {
    throw new Error(
      `Environment variable ${name} must be ${fallback.length} comma-separated seconds (0 to 900)`,
    )
  }
  return list
}

function key(name: string): Buffer | undefined {
  const raw = process.env[name]?.trim()
  if (!raw) return undefined
  const buf = Buffer.from(raw, 'base64')
  if (buf.length !== 32) throw new Error(`Environment variable ${name} must be 32 bytes, base64-encoded`)
  return buf
}

function scheme(serviceHost: string): 'http' | 'https' {
  const local = serviceHost === 'localhost' || serviceHost.endsWith('.localhost')
  const raw = str('LMS_PUBLIC_SCHEME', local ? 'http' : 'https')
  if (raw !== 'http' && raw !== 'https')
    throw new Error('Environment variable LMS_PUBLIC_SCHEME must be http or https')
  return raw
}

function readConfig(): Config {
  const logLevel = str('LMS_LOG_LEVEL', 'info')
  if (logLevel !== 'debug' && logLevel !== 'info' && logLevel !== 'silent') {
    throw new Error('Environment variable LMS_LOG_LEVEL must be debug, info or silent')
  }
  return {
    tableName: str('LMS_TABLE_NAME', 'lms'),
    region: str('AWS_REGION', 'us-east-1'),
    awsRequestTimeoutMs: process.env.LMS_AWS_REQUEST_TIMEOUT_MS?.trim()
      ? int('LMS_AWS_REQUEST_TIMEOUT_MS', 0)
      : undefined,
    s3PathStyle: Boolean(optional('AWS_ENDPOINT_URL_S3') ?? optional('AWS_ENDPOINT_URL')),
    contentBucket: optional('LMS_CONTENT_BUCKET'),
    serviceHost: str('LMS_SERVICE_HOST', 'localhost').toLowerCase(),
    publicScheme: scheme(str('LMS_SERVICE_HOST', 'localhost').toLowerCase()),
    corporateOrigin: str('LMS_CORPORATE_ORIGIN', 'https://www.example.com'),
    tenantCacheMs: int('LMS_TENANT_CACHE_MS', 5000),
    logLevel,
    metricsNamespace: str('LMS_METRICS_NAMESPACE', 'lms/local'),
    allowLoopbackTargets:
      process.env.LMS_ALLOW_LOOPBACK_TARGETS === '1' && !process.env.AWS_LAMBDA_FUNCTION_NAME,
    encryptionKey: key('LMS_ENCRYPTION_KEY'),
    encryptionKeyRingFile: optional('LMS_ENCRYPTION_KEY_RING_FILE'),
    encryptionSecretArn: optional('LMS_ENCRYPTION_SECRET_ARN'),
    secretRefreshMs: int('LMS_SECRET_REFRESH_MINUTES', 5) * 60_000,
    pseudonymSecretArn: optional('LMS_PSEUDONYM_SECRET_ARN'),
    ltiKeySecretArn: optional('LMS_LTI_KEY_SECRET_ARN'),
    webhookRetryDelays: delays('LMS_WEBHOOK_RETRY_DELAYS', [30, 60, 120, 240]),
    webhookTimeoutMs: int('LMS_WEBHOOK_TIMEOUT_MS', 10_000),
    webhooksQueueUrl: optional('LMS_WEBHOOKS_QUEUE_URL'),
    webhookReplayQueueUrl: optional('LMS_REPLAYS_QUEUE_URL'),
    webhookReplayPageSize: int('LMS_WEBHOOK_REPLAY_PAGE_SIZE', 25),
    webhookReplayPageDelaySeconds: int('LMS_WEBHOOK_REPLAY_PAGE_DELAY_SECONDS', 1),
    xapiRetryDelays: delays('LMS_XAPI_RETRY_DELAYS', [30, 60, 120, 240]),
    xapiTimeoutMs: int('LMS_XAPI_TIMEOUT_MS', 10_000),
    xapiQueueUrl: optional('LMS_XAPI_QUEUE_URL'),
    agsRetryDelays: delays('LMS_AGS_RETRY_DELAYS', [30, 60, 120, 240]),
    agsQueueUrl: optional('LMS_AGS_QUEUE_URL'),
    outboxSweepAfterMs: int('LMS_OUTBOX_SWEEP_AFTER_MS', 60_000),
    platformMetricsSecret: optional('LMS_PLATFORM_METRICS_SECRET'),
    platformMetricsSecretFile: optional('LMS_PLATFORM_METRICS_SECRET_FILE'),
    platformMetricsSecretArn: optional('LMS_PLATFORM_METRICS_SECRET_ARN'),
    exportsBucket: optional('LMS_EXPORTS_BUCKET'),
    exportsQueueUrl: optional('LMS_EXPORTS_QUEUE_URL'),
    exportRowCap: int('LMS_EXPORT_ROW_CAP', 50_000),
    migrationMaxRcuPerSecond: int('LMS_MIGRATION_MAX_RCU_PER_SECOND', 0),
    migrationMaxWcuPerSecond: int('LMS_MIGRATION_MAX_WCU_PER_SECOND', 0),
    ...mailConfig(),
  }
}

function mailConfig() {
  const transport = str('LMS_MAIL_TRANSPORT', 'sink')
  if (transport !== 'ses' && transport !== 'sink') {
    throw new Error('Environment variable LMS_MAIL_TRANSPORT must be ses or sink')
  }
  return {
    notificationsQueueUrl: optional('LMS_NOTIFICATIONS_QUEUE_URL'),
    mailTransport: transport,
    mailFrom: str('LMS_MAIL_FROM', `no-reply@${str('LMS_SERVICE_HOST', 'localhost').toLowerCase()}`),
    sesConfigurationSet: optional('LMS_SES_CONFIGURATION_SET'),
    operatorEmail: optional('LMS_OPERATOR_EMAIL'),
  } as const
}

export const config: Config = readConfig()
