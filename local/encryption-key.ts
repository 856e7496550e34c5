/**
 * The local stack's key for secrets at rest: LMS_ENCRYPTION_KEY if set, else a key file the stack
 * creates in its data dir (so sealed secrets survive restarts), else (in memory) one per run.
 */
import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

export function encryptionKey(dataDir: string): string {
  const given = process.env.LMS_ENCRYPTION_KEY?.trim()
  if (given) return given
  if (dataDir === ':memory:') return randomBytes(32).toString('base64')
  const file = join(dataDir, 'encryption.key')
  if (existsSync(file)) return readFileSync(file, 'utf8').trim()
  mkdirSync(dataDir, { recursive: true })
  const key = randomBytes(32).toString('base64')
  writeFileSync(file, `${key}\n`, { mode: 0o600 })
  return key
}
