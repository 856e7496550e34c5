/**
 * The local stack's secrets, shared by every process of one stack (the stack and every `lms`
 * command run against it) through files, so that `lms secret rotate` reaches the running stack:
 *
 * - the encryption key ring (shared/crypto/key-ring.ts): `<LMS_DATA_DIR>/encryption.key`, so that
 *   it survives restarts (a file of one base64 key, as older stacks wrote it, is a ring of `k0`);
 *   with LMS_ENCRYPTION_KEY or `:memory:`, a file of the run seeded with that key (or a new one);
 * - the billing platform secret, when LMS_PLATFORM_METRICS_SECRET is given: a file of the run.
 *
 * The stack publishes where they are in a runtime file named after its DynamoDB port, which only
 * the user can read and which it removes when it stops; the CLI finds them there.
 */
import { randomBytes } from 'node:crypto'
import { existsSync, lstatSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir, userInfo } from 'node:os'
import { join, resolve } from 'node:path'

const uid = process.getuid?.()

/** Where the stack's secrets are; what the stack and its CLI set as LMS_*_FILE. */
export interface StackSecretFiles {
  readonly encryptionKeyRing: string
  readonly platformMetricsSecret?: string
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

/** Written aside, then renamed: a reader never sees half a file, and a stale one is replaced. */
function writePrivate(file: string, text: string): void {
  const pending = `${file}.${process.pid}.pending`
  writeFileSync(pending, `${text}\n`, { mode: 0o600, flag: 'w' })
  renameSync(pending, file)
}

function ownedFile(file: string): void {
  const stat = lstatSync(file)
  if (!stat.isFile() || (uid !== undefined && (stat.uid !== uid || (stat.mode & 0o077) !== 0))) {
    throw new Error(`${file} must be a file that only you can read (mode 600)`)
  }
}

const newKey = () => randomBytes(32).toString('base64')

/** The data dir's ring file, made with a new key if there is none. */
function dataDirRing(dataDir: string): string {
  const file = resolve(dataDir, 'encryption.key')
  if (!existsSync(file)) {
    mkdirSync(dataDir, { recursive: true })
    writeFileSync(file, `${newKey()}\n`, { mode: 0o600 })
  }
  return file
}

const manifestOf = (dir: string, dynamoPort: number) => join(dir, `stack-${dynamoPort}.secrets.json`)

/**
 * The stack's secret files, published for its CLI; `withdraw` removes what the run made (safe to
 * call twice). The data dir's ring stays.
 */
export function publishStackSecrets(
  dataDir: string,
  dynamoPort: number,
): StackSecretFiles & { withdraw: () => void } {
  const dir = runtimeDir(true) ?? ''
  const ofRun: string[] = []
  const runFile = (name: string, text: string) => {
    const file = join(dir, `stack-${dynamoPort}.${name}`)
    writePrivate(file, text)
    ofRun.push(file)
    return file
  }
  const given = process.env.LMS_ENCRYPTION_KEY?.trim()
  const encryptionKeyRing =
    !given && dataDir !== ':memory:' ? dataDirRing(dataDir) : runFile('encryption-ring', given ?? newKey())
  const billing = process.env.LMS_PLATFORM_METRICS_SECRET?.trim()
  const files: StackSecretFiles = billing
    ? { encryptionKeyRing, platformMetricsSecret: runFile('platform-metrics-secret', billing) }
    : { encryptionKeyRing }
  const manifest = manifestOf(dir, dynamoPort)
  const published = JSON.stringify(files)
  writePrivate(manifest, published)
  ofRun.push(manifest)
  const withdraw = () => {
    try {
      // Another stack on the same port since (after a crash of this one) keeps its own files.
      if (readFileSync(manifest, 'utf8').trim() !== published) return
      for (const file of ofRun) rmSync(file, { force: true })
    } catch {
      // Already gone.
    }
  }
  return { ...files, withdraw }
}

/**
 * The secret files for an `lms` command: those the stack on `dynamoPort` published; else (none
 * running) the data dir's ring, unless LMS_ENCRYPTION_KEY is given (then undefined: that key alone).
 */
export function cliSecretFiles(dynamoPort: number, dataDir: string): StackSecretFiles | undefined {
  const dir = runtimeDir(false)
  const manifest = dir && manifestOf(dir, dynamoPort)
  if (manifest && existsSync(manifest)) {
    ownedFile(manifest)
    const files = JSON.parse(readFileSync(manifest, 'utf8')) as StackSecretFiles
    ownedFile(files.encryptionKeyRing)
    return files
  }
  if (process.env.LMS_ENCRYPTION_KEY?.trim()) return undefined
  if (dataDir !== ':memory:') return { encryptionKeyRing: dataDirRing(dataDir) }
  throw new Error(
    `No local stack publishes its secrets for DynamoDB port ${dynamoPort}: start it with npm start ` +
      '(same LMS_DYNAMODB_PORT), or give both the same LMS_ENCRYPTION_KEY',
  )
}

/** The environment that points a process at the stack's secret files. */
export function secretFilesEnv(files: StackSecretFiles): Record<string, string> {
  return {
    LMS_ENCRYPTION_KEY_RING_FILE: files.encryptionKeyRing,
    ...(files.platformMetricsSecret ? { LMS_PLATFORM_METRICS_SECRET_FILE: files.platformMetricsSecret } : {}),
  }
}
