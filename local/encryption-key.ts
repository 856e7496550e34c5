/**
 * The local stack's key for secrets at rest, one for every process of one stack (the stack and
 * every `lms` command run against it). The stack uses LMS_ENCRYPTION_KEY if set, else a key file
 * it creates in its data dir (so sealed secrets survive restarts), else (in memory) one per run;
 * and it publishes the key it uses in a runtime file named after its DynamoDB port, which only the
 * user can read and which it removes when it stops. The CLI reads the key of the stack whose
 * DynamoDB it talks to from there.
 */
import { randomBytes } from 'node:crypto'
import { existsSync, lstatSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir, userInfo } from 'node:os'
import { join } from 'node:path'

const uid = process.getuid?.()

export function stackKey(dataDir: string): string {
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

/** A directory in the shared temp dir that is ours alone: owned by us, a real directory, mode 700. */
export function runtimeDir(create: boolean): string | undefined {
  const dir = join(tmpdir(), `lms-${uid ?? userInfo().username}`)
  if (create) mkdirSync(dir, { mode: 0o700, recursive: true })
  if (!existsSync(dir)) return undefined
  const stat = lstatSync(dir)
  const ours = uid === undefined || (stat.uid === uid && (stat.mode & 0o077) === 0)
  if (!stat.isDirectory() || !ours) {
    throw new Error(`${dir} must be a directory that only you can use (mode 700); remove it and start again`)
  }
  return dir
}

const runtimeFile = (dir: string, dynamoPort: number) => join(dir, `stack-${dynamoPort}.key`)

/** Publishes the stack's key for its CLI; the returned function withdraws it (safe to call twice). */
export function publishStackKey(dynamoPort: number, key: string): () => void {
  const dir = runtimeDir(true) ?? ''
  const file = runtimeFile(dir, dynamoPort)
  // Written aside, then renamed: a reader never sees half a key, and a stale file is replaced.
  const pending = join(dir, `.stack-${dynamoPort}.${process.pid}`)
  writeFileSync(pending, `${key}\n`, { mode: 0o600, flag: 'w' })
  renameSync(pending, file)
  return () => {
    try {
      if (readFileSync(file, 'utf8').trim() === key) rmSync(file)
    } catch {
      // Already gone.
    }
  }
}

/**
 * The key for an `lms` command: LMS_ENCRYPTION_KEY if set, else the one the stack on `dynamoPort`
 * published, else (a stack of an older version, or none running) the data dir's key file.
 */
export function cliKey(dynamoPort: number, dataDir: string): string {
  const given = process.env.LMS_ENCRYPTION_KEY?.trim()
  if (given) return given
  const dir = runtimeDir(false)
  const file = dir && runtimeFile(dir, dynamoPort)
  if (file && existsSync(file)) {
    const stat = lstatSync(file)
    if (!stat.isFile() || (uid !== undefined && (stat.uid !== uid || (stat.mode & 0o077) !== 0))) {
      throw new Error(`${file} must be a file that only you can read (mode 600)`)
    }
    return readFileSync(file, 'utf8').trim()
  }
  if (dataDir !== ':memory:') return stackKey(dataDir)
  throw new Error(
    `No local stack publishes its key for DynamoDB port ${dynamoPort}: start it with npm start ` +
      '(same LMS_DYNAMODB_PORT), or give both the same LMS_ENCRYPTION_KEY',
  )
}
