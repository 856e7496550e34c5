/** Structured JSON log lines: ids and outcomes only, never a secret, a key or personal data. */
import { config } from './config.ts'

export function log(level: 'info' | 'error', msg: string, fields: Record<string, unknown> = {}): void {
  if (config.logLevel === 'silent') return
  process.stdout.write(`${JSON.stringify({ level, msg, ...fields })}\n`)
}
