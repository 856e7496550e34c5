/**
 * `lms secret rotate|retire-previous|reseal`: key rotation without orphaning a sealed value
 * (docs/operations.md, "Rotating secrets"). Locally against the stack's secret files; with
 * LMS_TARGET=aws against the secrets named by LMS_ENCRYPTION_SECRET_ARN, LMS_LTI_KEY_SECRET_ARN
 * and LMS_PLATFORM_METRICS_SECRET_ARN (the stack's outputs). No command prints a secret.
 */
import { resealPage, type Unopenable } from '../shared/services/secrets/reseal-service.ts'
import {
  retirePreviousBillingSecret,
  rotateSecret,
  secretNames,
  type SecretName,
} from '../shared/services/secrets/secret-rotation-service.ts'
import { required, UsageError } from './args.ts'
import { command, type Command, type Flags } from './flags.ts'

function nameOf(f: Flags): SecretName {
  const name = required(f, 'name')
  if (!(secretNames as readonly string[]).includes(name))
    throw new UsageError(`--name takes ${secretNames.join(', ')}`)
  return name as SecretName
}

function count(f: Flags, flag: string, fallback: number): number {
  const raw = f.get(flag)
  if (raw === undefined) return fallback
  if (!/^[1-9]\d*$/.test(raw)) throw new UsageError(`--${flag} takes a whole number above 0`)
  return Number(raw)
}

export const secretCommands: Record<string, Command> = {
  'secret rotate': command(
    `--name ${secretNames.join('|')} [--overlap-hours N]`,
    'add a new key to a secret (docs/operations.md, "Rotating secrets")',
    async (f) => {
      const name = nameOf(f)
      if (f.has('overlap-hours') && name !== 'billing')
        throw new UsageError('--overlap-hours is for --name billing only')
      const rotated = await rotateSecret(name, new Date(), count(f, 'overlap-hours', 24))
      return {
        name: rotated.name,
        key_id: rotated.keyId,
        rotated_at: rotated.rotatedAt,
        ...(rotated.previousUntil ? { previous_accepted_until: rotated.previousUntil } : {}),
      }
    },
  ),

  'secret retire-previous': command(
    '--name billing',
    "stop accepting the billing secret's previous value",
    async (f) => {
      if (nameOf(f) !== 'billing') throw new UsageError('retire-previous is for --name billing only')
      const retired = await retirePreviousBillingSecret(new Date())
      return { name: 'billing', key_id: retired.keyId, previous_retired_at: retired.retiredAt }
    },
  ),

  /** Page after page from `--cursor` (or the start), at most `--pages` of them. */
  'secret reseal': command(
    '[--pages N] [--tenants-per-page N] [--cursor C]',
    "rewrite each sealed value under its key ring's newest key",
    async (f) => {
      const pages = count(f, 'pages', Number.MAX_SAFE_INTEGER)
      const perPage = count(f, 'tenants-per-page', 50)
      let cursor = f.get('cursor')
      const totals = { tenants: 0, resealed: 0, current: 0, changed: 0 }
      const unopenable: Unopenable[] = []
      for (let done = 0; done < pages; done++) {
        const page = await resealPage(cursor, perPage)
        totals.tenants += page.tenants
        totals.resealed += page.resealed
        totals.current += page.current
        totals.changed += page.changed
        unopenable.push(...page.unopenable)
        cursor = page.cursor ?? undefined
        if (!cursor) break
      }
      return {
        ...totals,
        unopenable: unopenable.map((u) => ({
          tenant_id: u.tenantId,
          purpose: u.purpose,
          record_id: u.recordId,
          reason: u.reason,
        })),
        cursor: cursor ?? null,
      }
    },
  ),
}
