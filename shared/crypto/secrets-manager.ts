/**
 * Secrets Manager reads shared by the key holders: each secret is fetched once per container.
 *
 * One SigV4-signed `GetSecretValue` over HTTPS, signed by the SDK's own signer with the SDK's
 * default credentials chain, rather than `@aws-sdk/client-secrets-manager`: every keyed route group
 * reads a secret (the pseudonyms' key) and the client weighed 14 KiB and a tenth of the cold import
 * of each bundle for this one call (docs/decisions/0013-request-path-cost.md). The request is the
 * one the SDK's client sends (test/unit/crypto/secrets-manager.test.ts compares them), retried as
 * the SDK's standard mode retries: three attempts, on throttling, a 5xx or a network failure.
 */
import { defaultProvider } from '@aws-sdk/credential-provider-node'
import { SignatureV4 } from '@smithy/signature-v4'
import { config } from '../config.ts'
import { Sha256 } from './node-sha256.ts'

type Credentials = ConstructorParameters<typeof SignatureV4>[0]['credentials']

/** Where GetSecretValue goes and who signs it: AWS from the configured region, or a test's server. */
export interface SecretsService {
  readonly endpoint: string
  readonly region: string
  readonly credentials: Credentials
}

const ATTEMPTS = 3
const ATTEMPT_TIMEOUT_MS = 5_000
/** Error types worth another attempt (besides any 5xx and 429): the SDK's throttling codes. */
const RETRYABLE = new Set(['ThrottlingException', 'TooManyRequestsException', 'RequestLimitExceeded'])

/** The service in AWS: the partition's DNS suffix follows the region (China's regions differ). */
const inAws = (): SecretsService => ({
  endpoint: `https://secretsmanager.${config.region}.${config.region.startsWith('cn-') ? 'amazonaws.com.cn' : 'amazonaws.com'}`,
  region: config.region,
  credentials: defaultProvider(),
})
let aws: SecretsService | undefined

class SecretsManagerError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    options?: ErrorOptions,
  ) {
    super(message, options)
    this.name = 'SecretsManagerError'
  }
}

/** One signed attempt; the error never holds the secret (only the service's error type). */
async function attempt(secretArn: string, service: SecretsService): Promise<{ SecretString?: string }> {
  const url = new URL(service.endpoint)
  const body = JSON.stringify({ SecretId: secretArn })
  const signer = new SignatureV4({
    service: 'secretsmanager',
    region: service.region,
    credentials: service.credentials,
    sha256: Sha256,
  })
  const signed = await signer.sign({
    method: 'POST',
    protocol: url.protocol,
    hostname: url.hostname,
    ...(url.port ? { port: Number(url.port) } : {}),
    path: '/',
    query: {},
    headers: {
      host: url.host,
      'content-length': String(Buffer.byteLength(body)),
      'content-type': 'application/x-amz-json-1.1',
      'x-amz-target': 'secretsmanager.GetSecretValue',
    },
    body,
  })
  let res: Response
  try {
    res = await fetch(new URL('/', url), {
      method: 'POST',
      headers: signed.headers,
      body,
      signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS),
    })
  } catch (err) {
    throw new SecretsManagerError('GetSecretValue: no answer from Secrets Manager', true, { cause: err })
  }
  const payload = (await res.json().catch(() => ({}))) as { __type?: unknown; SecretString?: unknown }
  if (res.ok) return typeof payload.SecretString === 'string' ? { SecretString: payload.SecretString } : {}
  const type = String(res.headers.get('x-amzn-errortype') ?? payload.__type ?? 'UnknownError')
    .split(':')[0]
    ?.split('#')
    .pop()
  throw new SecretsManagerError(
    `GetSecretValue refused: ${res.status} ${type}`,
    res.status >= 500 || res.status === 429 || RETRYABLE.has(type ?? ''),
  )
}

/** A secret's string value. */
export async function secretString(secretArn: string, service?: SecretsService): Promise<string> {
  const target = service ?? (aws ??= inAws())
  for (let n = 1; ; n++) {
    try {
      const out = await attempt(secretArn, target)
      if (!out.SecretString) throw new Error('The secret is empty')
      return out.SecretString
    } catch (err) {
      if (!(err instanceof SecretsManagerError) || !err.retryable || n >= ATTEMPTS) throw err
      // Full jitter over an exponential base, as the SDK's standard retry strategy waits.
      await new Promise((r) => setTimeout(r, Math.random() * 100 * 2 ** n))
    }
  }
}

/** Fetched once per container; a failed fetch is tried again by the next caller. */
export function once<T>(fetch: () => Promise<T>): () => Promise<T> {
  let cached: Promise<T> | undefined
  return () => {
    cached ??= fetch().catch((err: unknown) => {
      cached = undefined
      throw err
    })
    return cached
  }
}
