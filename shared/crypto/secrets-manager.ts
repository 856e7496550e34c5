/**
 * Secrets Manager reads shared by the key holders: each secret is fetched once per container.
 *
 * One signed `GetSecretValue` (shared/aws/signed-json-call.ts) rather than
 * `@aws-sdk/client-secrets-manager`: every keyed route group reads a secret (the pseudonyms' key)
 * and the client weighed 14 KiB and a tenth of the cold import of each bundle for this one call
 * (docs/decisions/0013-request-path-cost.md). The request is the one the SDK's client sends
 * (test/unit/crypto/secrets-manager.test.ts compares them).
 */
import { awsEndpoint, callAwsJson, type AwsJsonService } from '../aws/signed-json-call.ts'
import { config } from '../config.ts'
import { lambdaCredentials } from '../aws/credentials.ts'

/** Where GetSecretValue goes and who signs it: AWS from the configured region, or a test's server. */
export type SecretsService = AwsJsonService

const inAws = (): SecretsService => ({
  endpoint: awsEndpoint('secretsmanager', config.region),
  region: config.region,
  credentials: lambdaCredentials(),
})
let aws: SecretsService | undefined

const getSecretValue = {
  signingName: 'secretsmanager',
  jsonVersion: '1.1',
  target: 'secretsmanager.GetSecretValue',
} as const

/** A secret's string value; a refusal names the error type, never the secret. */
export async function secretString(secretArn: string, service?: SecretsService): Promise<string> {
  const out = (await callAwsJson(service ?? (aws ??= inAws()), getSecretValue, { SecretId: secretArn })) as {
    SecretString?: unknown
  }
  if (typeof out.SecretString !== 'string' || !out.SecretString) throw new Error('The secret is empty')
  return out.SecretString
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
