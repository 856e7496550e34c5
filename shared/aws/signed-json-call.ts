/**
 * One call to an AWS service's JSON protocol (`X-Amz-Target`), SigV4-signed by the SDK's own
 * signer with the SDK's default credentials chain, both already in every bundle for DynamoDB. The
 * product makes a few such calls from route groups that need nothing else of the service (Secrets
 * Manager's GetSecretValue, SQS's SendMessage), and each service client weighed 14-25 KiB and a
 * share of the cold import of every bundle that held it (docs/decisions/0013-request-path-cost.md).
 * Retried as the SDK's standard mode retries: three attempts, on throttling, a 429, a 5xx or no
 * answer, with full jitter over an exponential base.
 */
import { SignatureV4 } from '@smithy/signature-v4'
import { Sha256 } from '../crypto/node-sha256.ts'
import { post, type PostAnswer } from './https-post.ts'

export type Credentials = ConstructorParameters<typeof SignatureV4>[0]['credentials']

/** Where the calls go and who signs them. */
export interface AwsJsonService {
  /** `https://<service>.<region>.amazonaws.com`, or an emulator's or a test's server. */
  readonly endpoint: string
  readonly region: string
  readonly credentials: Credentials
}

/**
 * What one operation needs besides the service: its signing name, and either the JSON protocol's
 * version and `X-Amz-Target` (`<prefix>.<Operation>`, POST /), or a REST-JSON path (POST, JSON body).
 */
export type AwsJsonOperation =
  | { readonly signingName: string; readonly jsonVersion: '1.0' | '1.1'; readonly target: string }
  | { readonly signingName: string; readonly path: string; readonly name: string }

/** How a service's calls are retried and refused, where it differs from the defaults. */
export interface CallPolicy {
  /** Attempts in all (default 3). */
  readonly attempts?: number
  /** Each attempt's time limit (default 5 s); null for none, as the SDK's DynamoDB client has none. */
  readonly attemptTimeoutMs?: number | null
  /** Error types retried besides any 5xx and 429 (default: the SDK's throttling codes). */
  readonly retryableTypes?: ReadonlySet<string>
  /**
   * The error of a refused call, for services whose callers read more of the refusal than its type
   * (DynamoDB's cancellation reasons). Default: an AwsCallError that holds no part of the answer.
   */
  readonly refusal?: (refused: Refusal) => AwsCallError
}

/** A refused call as the service answered it. */
export interface Refusal {
  readonly message: string
  readonly retryable: boolean
  readonly errorType: string
  readonly payload: Readonly<Record<string, unknown>>
}

const ATTEMPTS = 3
const ATTEMPT_TIMEOUT_MS = 5_000
/** Error types worth another attempt besides any 5xx and 429: the SDK's throttling codes. */
const RETRYABLE = new Set([
  'ThrottlingException',
  'TooManyRequestsException',
  'RequestLimitExceeded',
  'RequestThrottled',
  'RequestThrottledException',
])

/** The endpoint of a service in the configured region (China's regions have their own suffix). */
export function awsEndpoint(service: string, region: string): string {
  return `https://${service}.${region}.${region.startsWith('cn-') ? 'amazonaws.com.cn' : 'amazonaws.com'}`
}

/** A refused or unanswered call: the operation, the HTTP status and the service's error type only. */
export class AwsCallError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly errorType: string,
    options?: ErrorOptions,
  ) {
    super(message, options)
    this.name = 'AwsCallError'
  }
}

/** The service's error type, from the header or the body (`com.amazonaws.sqs#QueueDoesNotExist`). */
const errorTypeOf = (header: string | null, body: { __type?: unknown }): string =>
  String(header ?? body.__type ?? 'UnknownError')
    .split(':')[0]
    ?.split('#')
    .pop() ?? 'UnknownError'

/** One signer per service and signing name: it caches the day's signing key between calls. */
const signers = new WeakMap<AwsJsonService, Map<string, SignatureV4>>()

function signerFor(service: AwsJsonService, signingName: string): SignatureV4 {
  let byName = signers.get(service)
  if (!byName) signers.set(service, (byName = new Map()))
  let signer = byName.get(signingName)
  if (!signer) {
    signer = new SignatureV4({
      service: signingName,
      region: service.region,
      credentials: service.credentials,
      sha256: Sha256,
    })
    byName.set(signingName, signer)
  }
  return signer
}

function parsed(text: string): { __type?: unknown } | undefined {
  try {
    const value: unknown = JSON.parse(text)
    return value !== null && typeof value === 'object' ? (value as { __type?: unknown }) : undefined
  } catch {
    return undefined
  }
}

async function attempt(
  service: AwsJsonService,
  op: AwsJsonOperation,
  body: string,
  policy: CallPolicy,
): Promise<unknown> {
  const url = new URL(service.endpoint)
  const path = 'path' in op ? op.path : '/'
  const name = 'target' in op ? (op.target.split('.').pop() ?? op.target) : op.name
  const signer = signerFor(service, op.signingName)
  const signed = await signer.sign({
    method: 'POST',
    protocol: url.protocol,
    hostname: url.hostname,
    ...(url.port ? { port: Number(url.port) } : {}),
    path,
    query: {},
    headers: {
      host: url.host,
      'content-length': String(Buffer.byteLength(body)),
      ...('target' in op
        ? { 'content-type': `application/x-amz-json-${op.jsonVersion}`, 'x-amz-target': op.target }
        : { 'content-type': 'application/json' }),
    },
    body,
  })
  let res: PostAnswer
  try {
    const timeout = policy.attemptTimeoutMs === undefined ? ATTEMPT_TIMEOUT_MS : policy.attemptTimeoutMs
    res = await post(new URL(path, url), signed.headers, body, timeout)
  } catch (err) {
    throw new AwsCallError(`${name}: no answer from ${op.signingName}`, true, 'NoAnswer', { cause: err })
  }
  const payload = parsed(res.body)
  // An empty or non-JSON success is an empty answer, as before: it was accepted, so not sent again.
  if (res.status >= 200 && res.status < 300) return payload ?? {}
  const errorType = res.headers['x-amzn-errortype']
  const type = errorTypeOf(typeof errorType === 'string' ? errorType : null, payload ?? {})
  const refused: Refusal = {
    message: `${name} refused: ${res.status} ${type}`,
    retryable: res.status >= 500 || res.status === 429 || (policy.retryableTypes ?? RETRYABLE).has(type),
    errorType: type,
    payload: payload ?? {},
  }
  throw policy.refusal ? policy.refusal(refused) : new AwsCallError(refused.message, refused.retryable, type)
}

/**
 * Sends `input` to the operation and returns the service's JSON answer. The error never holds the
 * request or the answer's body (a secret, a message): only the operation, status and error type.
 */
export async function callAwsJson(
  service: AwsJsonService,
  op: AwsJsonOperation,
  input: Readonly<Record<string, unknown>>,
  policy: CallPolicy = {},
): Promise<unknown> {
  const body = JSON.stringify(input)
  for (let n = 1; ; n++) {
    try {
      return await attempt(service, op, body, policy)
    } catch (err) {
      if (!(err instanceof AwsCallError) || !err.retryable || n >= (policy.attempts ?? ATTEMPTS)) throw err
      await new Promise((r) => setTimeout(r, Math.random() * 100 * 2 ** n))
    }
  }
}
