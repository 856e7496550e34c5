/** Secrets Manager reads shared by the key holders: each secret is fetched once per container. */
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager'
import { config } from '../config.ts'

/** A secret's string value. */
export async function secretString(secretArn: string): Promise<string> {
  const client = new SecretsManagerClient({ region: config.region })
  const out = await client.send(new GetSecretValueCommand({ SecretId: secretArn }))
  if (!out.SecretString) throw new Error('The secret is empty')
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
