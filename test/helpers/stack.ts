/**
 * A local stack of its own (`npm start` on free ports), for tests about the stack itself, and the
 * CLI pointed at it. Every wait is for an event (the ready line, the exit); the test's own timeout
 * is the only clock. The test setup stops what a test left running, whether it passed or not.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { embeddedAwsSettings } from '../../local/aws-environment.ts'
import { freePort } from '../../local/free-port.ts'
import { runCli, type CliResult } from './cli.ts'

/** What the test workers' environment points at the suite's shared stack: never inherited here. */
const sharedStackSettings = [
  ...embeddedAwsSettings,
  'LMS_CONTENT_BUCKET',
  'LMS_WEBHOOKS_QUEUE_URL',
  'LMS_XAPI_QUEUE_URL',
  'LMS_ENCRYPTION_KEY',
]

/** The environment of a fresh shell on this machine, plus the suite's test-friendly settings. */
export function freshEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {}
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !sharedStackSettings.includes(k)) env[k] = v
  }
  return { ...env, ...extra }
}

export interface StackPorts {
  readonly PORT: string
  readonly LMS_DYNAMODB_PORT: string
  readonly LMS_EMULATOR_PORT: string
}

export async function freePorts(): Promise<StackPorts> {
  return {
    PORT: String(await freePort()),
    LMS_DYNAMODB_PORT: String(await freePort()),
    LMS_EMULATOR_PORT: String(await freePort()),
  }
}

export interface Stack {
  readonly env: Record<string, string>
  readonly pid: number
  /** Everything it printed (stdout and stderr) so far. */
  output(): string
  /** Resolves with the gateway's URL once it prints its ready line; rejects if it exits first. */
  readonly ready: Promise<string>
  /** Resolves with the exit code (null when a signal ended it). */
  readonly exited: Promise<number | null>
  kill(signal: NodeJS.Signals): void
  /** `npx lms ...` against this stack's stores, with this stack's environment. */
  cli(...args: string[]): Promise<CliResult>
}

const running = new Set<ChildProcess>()

/** SIGTERM to every stack still running, then SIGKILL to any that has not exited after 30 s. */
export async function stopOpenStacks(): Promise<void> {
  await Promise.all(
    [...running].map(async (child) => {
      const exited = new Promise((r) => child.once('exit', r))
      child.kill('SIGTERM')
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000)
      await exited
      clearTimeout(timer)
    }),
  )
}

/**
 * `npm start` with `env` over a fresh environment; free ports unless `env` names them. Without the
 * demo tenant's sample data unless `env` asks for it (`LMS_DEMO_DATA: 'on'`): it costs start time.
 */
export async function startStack(env: Record<string, string>): Promise<Stack> {
  const stackEnv = freshEnv({ LMS_LOG_LEVEL: 'silent', LMS_DEMO_DATA: 'off', ...(await freePorts()), ...env })
  const child = spawn(process.execPath, ['--import', 'tsx', 'local/start.ts'], {
    env: stackEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  running.add(child)
  let out = ''
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      running.delete(child)
      resolve(code)
    }),
  )
  const ready = new Promise<string>((resolve, reject) => {
    const hear = (c: Buffer) => {
      out += c.toString()
      const complete = out.split('\n').slice(0, -1)
      const line = complete.find((l) => l.startsWith('{') && l.includes('"msg":"ready"'))
      if (line) resolve((JSON.parse(line) as { url: string }).url)
    }
    child.stdout.on('data', hear)
    child.stderr.on('data', hear)
    void exited.then((code) => reject(new Error(`the stack exited with code ${code}:\n${out}`)))
  })
  ready.catch(() => undefined)
  return {
    env: stackEnv,
    pid: child.pid ?? 0,
    output: () => out,
    ready,
    exited,
    kill: (signal) => child.kill(signal),
    cli: (...args) => runCli(stackEnv, args),
  }
}
