/** The CLI's command type and the flag readers every command family shares. */
import { ValidationError } from '../shared/domain/errors.ts'
import * as tenants from '../shared/services/tenants/tenants-service.ts'
import { required, UsageError } from './args.ts'

export type Flags = ReadonlyMap<string, string>
/**
 * One entry of the CLI's command table: what `lms --help` and `lms <command> --help` print of it,
 * and what it runs.
 */
export interface Command {
  /** The flags (and words) after the command's name: `--tenant S --id ID [--at ISO]`; '' for none. */
  readonly usage: string
  /** What it does, in one line. */
  readonly summary: string
  /** Reads its flags; a family such as `jobs run <name>` also reads the words after its own two. */
  readonly run: (flags: Flags, words: readonly string[]) => Promise<unknown>
}

export const command = (usage: string, summary: string, run: Command['run']): Command => ({
  usage,
  summary,
  run,
})

export const tenantOf = (flags: Flags) => tenants.requireTenant(required(flags, 'tenant'))

export function at(flags: Flags): string | undefined {
  const raw = flags.get('at')
  if (raw === undefined) return undefined
  if (Number.isNaN(Date.parse(raw))) throw new ValidationError('at', '--at must be an ISO 8601 timestamp')
  return new Date(raw).toISOString()
}

export function optionalInt(flags: Flags, name: string): number | null | undefined {
  const raw = flags.get(name)
  if (raw === undefined) return undefined
  if (raw === 'none' || raw === 'plan') return null
  if (!/^\d+$/.test(raw)) throw new UsageError(`--${name} takes a whole number (or none)`)
  return Number(raw)
}

export function optionalTimestamp(flags: Flags, name: string): string | null | undefined {
  const raw = flags.get(name)
  if (raw === undefined) return undefined
  if (raw === 'none') return null
  if (Number.isNaN(Date.parse(raw))) throw new UsageError(`--${name} takes an ISO 8601 timestamp (or none)`)
  return new Date(raw).toISOString()
}

export function optionalNumber(flags: Flags, name: string): number | undefined {
  const raw = flags.get(name)
  if (raw === undefined) return undefined
  const n = Number(raw)
  if (raw.trim() === '' || !Number.isFinite(n) || n < 0)
    throw new UsageError(`--${name} takes a non-negative number`)
  return n
}

export function number(flags: Flags, name: string, fallback?: number): number | undefined {
  const raw = flags.get(name)
  if (raw === undefined) return fallback
  const n = Number(raw)
  if (raw.trim() === '' || !Number.isFinite(n)) throw new UsageError(`--${name} takes a number`)
  return n
}
