/**
 * The platform secret the billing orchestrator presents (`Authorization: Bearer <secret>`): one
 * static secret, not a tenant key. Locally from LMS_PLATFORM_METRICS_SECRET; in AWS from its
 * Secrets Manager secret. Where neither is configured the route is not enabled and every request
 * is refused.
 */
import { createHash, timingSafeEqual } from 'node:crypto'
import { config } from '../config.ts'
import { once, secretString } from './secrets-manager.ts'

const expected = once(async (): Promise<Buffer | null> => {
  const secret =
    config.platformMetricsSecret ??
    (config.platformMetricsSecretArn ? await secretString(config.platformMetricsSecretArn) : undefined)
  return secret ? digest(secret) : null
})

// Both sides hashed first: equal lengths, so the comparison takes the same time whatever is sent.
const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest()

/** Whether `presented` is the platform secret, compared in constant time; never when none is set. */
export async function isPlatformSecret(presented: string | undefined): Promise<boolean> {
  const secret = await expected()
  if (secret === null || presented === undefined || presented === '') return false
  return timingSafeEqual(digest(presented), secret)
}
