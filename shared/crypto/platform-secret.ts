/**
 * The platform secret the billing orchestrator presents (`Authorization: Bearer <secret>`): one
 * static secret, not a tenant key. Locally from LMS_PLATFORM_METRICS_SECRET_FILE (the stack's) or
 * LMS_PLATFORM_METRICS_SECRET; in AWS from its Secrets Manager secret, read again every few
 * minutes. During a rotation two values are accepted (shared/crypto/platform-secret-value.ts).
 * Where none is configured the route is not enabled and every request is refused.
 */
import { createHash, timingSafeEqual } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { config } from '../config.ts'
import { acceptedValues, parsePlatformSecret, type PlatformSecretValue } from './platform-secret-value.ts'
import { refreshing, secretString, type Refreshing } from './secrets-manager.ts'

async function loadPlatformSecret(): Promise<PlatformSecretValue | null> {
  const text = config.platformMetricsSecretFile
    ? await readFile(config.platformMetricsSecretFile, 'utf8')
    : (config.platformMetricsSecret ??
      (config.platformMetricsSecretArn ? await secretString(config.platformMetricsSecretArn) : undefined))
  return text ? parsePlatformSecret(text) : null
}

// Both sides hashed first: equal lengths, so the comparison takes the same time whatever is sent.
const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest()

/** A checker over the secret given (the product's below; tests give theirs and their clock). */
export function platformSecretChecker(
  secret: Refreshing<PlatformSecretValue | null>,
  now: () => Date = () => new Date(),
) {
  const matches = (value: PlatformSecretValue | null, sent: Buffer) =>
    value !== null &&
    // Every accepted value is compared, so the time taken does not tell which one matched.
    acceptedValues(value, now())
      .map((accepted) => timingSafeEqual(sent, digest(accepted)))
      .reduce((a, b) => a || b, false)

  /**
   * Whether `presented` is an accepted value, compared in constant time; never when none is set.
   * A value that does not match makes the secret be read again (at most every few seconds): the
   * orchestrator may already present a value rotated in after this container read the secret.
   */
  return async function isPlatformSecret(presented: string | undefined): Promise<boolean> {
    if (presented === undefined || presented === '') return false
    const sent = digest(presented)
    return matches(await secret(), sent) || matches(await secret.reload(), sent)
  }
}

export const isPlatformSecret = platformSecretChecker(
  refreshing(loadPlatformSecret, { maxAgeMs: config.secretRefreshMs }),
)
