/**
 * Secrets Manager reads shared by the key holders, through the product's client
 * (shared/aws/secrets-manager.ts): each secret is fetched once per container.
 */
import { GetSecretValueCommand } from '@aws-sdk/client-secrets-manager'
import { secretsManager } from '../aws/secrets-manager.ts'

/** A secret's string value; a refusal names the error type, never the secret. */
export async function secretString(secretArn: string): Promise<string> {
  const out = await secretsManager.send(new GetSecretValueCommand({ SecretId: secretArn }))
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
