/** Structured JSON log lines: ids and outcomes only, never a secret, a key or personal data. */
import { config } from './config.ts'

export function log(level: 'info' | 'error', msg: string, fields: Record<string, unknown> = {}): void {
  if (config.logLevel === 'silent') return
  process.stdout.write(`${JSON.stringify({ level, msg, ...fields })}\n`)
}

/**
 * What a log line says about an error: its name and message (cut short), and its cause's name.
 * Never a stack, nor a cause's message: a store's error text can quote what was sent.
 */
export function errorFields(err: unknown): { errorName: string; errorMessage: string; causeName?: string } {
  if (!(err instanceof Error)) return { errorName: typeof err, errorMessage: 'a non-Error value was thrown' }
  const cause = err.cause instanceof Error ? { causeName: err.cause.name } : {}
  return { errorName: err.name, errorMessage: err.message.slice(0, MESSAGE_LIMIT), ...cause }
}

const MESSAGE_LIMIT = 300
