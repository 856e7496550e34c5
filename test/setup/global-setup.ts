/**
 * Starts the product exactly as `npm start` does (in memory, on free ports) once per test run,
 * and hands its addresses to the test files.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort } from '../../local/free-port.ts'
import { describeSummary, readCheckedCalls, summarize } from '../../local/iam/checked-record.ts'
import { ensureChromium, systemHost } from '../helpers/find-chromium.ts'
import type { TestProject } from 'vitest/node'

declare module 'vitest' {
  export interface ProvidedContext {
    gatewayUrl: string
    dynamoEndpoint: string
    emulatorEndpoint: string
    dynamoPort: string
    emulatorPort: string
    encryptionKey: string
    webhooksQueueUrl: string
    xapiQueueUrl: string
    platformMetricsSecret: string
    notificationsQueueUrl: string
    /** The Chromium or Chrome the LTI browser test drives (find-chromium.ts). */
    chromePath: string
    /** Where the stack records each distinct decision of its IAM check (local/iam/checked-record.ts). */
    iamRecordFile: string
  }
}

let child: ChildProcess | undefined

/**
 * Limits that only end a run that hangs: a cold start takes 15-30 s, and several times that on a
 * busy 2-core machine; each wait is for an event (the ready line, the exit), never a fixed while.
 */
const readyLimitMs = 600_000
const stopLimitMs = 60_000

interface ReadyLine {
  url: string
  dynamodb: string
  emulator: string
  webhooksQueue: string
  xapiQueue: string
  notificationsQueue: string
}

class PortTaken extends Error {}

const encryptionKey = randomBytes(32).toString('base64')
const platformMetricsSecret = randomBytes(24).toString('base64url')
/** Kept after the run: what was checked, for whoever wants more than the closing line's figure. */
const iamRecordFile = join(tmpdir(), `lms-iam-checked-${process.pid}.jsonl`)

async function boot(): Promise<{ ready: ReadyLine; dynamoPort: number; emulatorPort: number }> {
  const [port, dynamoPort, emulatorPort] = [await freePort(), await freePort(), await freePort()]
  const started = spawn(process.execPath, ['--import', 'tsx', 'local/start.ts'], {
    env: {
      ...process.env,
      PORT: String(port),
      LMS_DYNAMODB_PORT: String(dynamoPort),
      LMS_EMULATOR_PORT: String(emulatorPort),
      LMS_DATA_DIR: ':memory:',
      // Tests count users, courses and enrollments: the demo tenant starts empty.
      LMS_DEMO_DATA: 'off',
      LMS_LOG_LEVEL: 'silent',
      // Tests change plans and statuses and expect the next request to see it.
      LMS_TENANT_CACHE_MS: '0',
      LMS_ENCRYPTION_KEY: encryptionKey,
      LMS_PLATFORM_METRICS_SECRET: platformMetricsSecret,
      // Receivers in tests listen on loopback; retries are seconds apart instead of minutes.
      LMS_ALLOW_LOOPBACK_TARGETS: '1',
      LMS_WEBHOOK_RETRY_DELAYS: '1,1,1,1',
      LMS_WEBHOOK_TIMEOUT_MS: '1500',
      LMS_XAPI_RETRY_DELAYS: '1,1,1,1',
      LMS_XAPI_TIMEOUT_MS: '1500',
      LMS_AGS_RETRY_DELAYS: '1,1,1,1',
      // Contact requests are forwarded here (the mail sink shows them).
      LMS_OPERATOR_EMAIL: 'operators@lms.test',
      // Every AWS call of a function is checked against its grants in the synthesized template.
      LMS_IAM_CHECK: 'on',
      LMS_IAM_RECORD: iamRecordFile,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  child = started
  let errors = ''
  started.stderr?.on('data', (chunk: Buffer) => {
    errors += chunk.toString()
    process.stderr.write(chunk)
  })
  const ready = await new Promise<ReadyLine>((resolve, reject) => {
    let buffer = ''
    const timer = setTimeout(
      () => reject(new Error(`the local stack did not start within ${readyLimitMs / 1000} s`)),
      readyLimitMs,
    )
    started.stdout?.on('data', (chunk: Buffer) => {
      buffer += chunk.toString()
      for (const line of buffer.split('\n')) {
        if (!line.includes('"msg":"ready"')) continue
        clearTimeout(timer)
        resolve(JSON.parse(line) as ReadyLine)
      }
    })
    started.once('exit', (code) => {
      clearTimeout(timer)
      const message = `the local stack exited with code ${code}`
      reject(portTaken.test(errors) ? new PortTaken(message) : new Error(message))
    })
  })
  return { ready, dynamoPort, emulatorPort }
}

/** A port the OS had free a moment ago can be taken again before the stack binds it. */
const bootAttempts = 3
const portTaken = /EADDRINUSE|BindException|address already in use|failed to bind/i

export async function setup(project: TestProject): Promise<void> {
  // Before the stack boots: without a browser the run stops at once, naming the command to run.
  project.provide('chromePath', ensureChromium(systemHost()))
  rmSync(iamRecordFile, { force: true })
  project.provide('iamRecordFile', iamRecordFile)
  let booted: { ready: ReadyLine; dynamoPort: number; emulatorPort: number } | undefined
  for (let attempt = 1; !booted; attempt++) {
    try {
      booted = await boot()
    } catch (e) {
      if (!(e instanceof PortTaken) || attempt >= bootAttempts) throw e
    }
  }
  const { ready, dynamoPort, emulatorPort } = booted
  project.provide('gatewayUrl', ready.url)
  project.provide('dynamoEndpoint', ready.dynamodb)
  project.provide('emulatorEndpoint', ready.emulator)
  project.provide('dynamoPort', String(dynamoPort))
  project.provide('emulatorPort', String(emulatorPort))
  project.provide('encryptionKey', encryptionKey)
  project.provide('webhooksQueueUrl', ready.webhooksQueue)
  project.provide('xapiQueueUrl', ready.xapiQueue)
  project.provide('platformMetricsSecret', platformMetricsSecret)
  project.provide('notificationsQueueUrl', ready.notificationsQueue)
}

export async function teardown(): Promise<void> {
  await stopStack()
  reportIamChecks()
}

async function stopStack(): Promise<void> {
  if (!child || child.exitCode !== null) return
  const exited = new Promise((resolve) => child?.once('exit', resolve))
  child.kill('SIGTERM')
  let timer: NodeJS.Timeout | undefined
  await Promise.race([exited, new Promise((r) => (timer = setTimeout(r, stopLimitMs)))])
  clearTimeout(timer)
  if (child.exitCode === null) child.kill('SIGKILL')
}

/** The run's IAM figure; a call refused anywhere in the run fails it, even if no test noticed. */
function reportIamChecks(): void {
  const summary = summarize(readCheckedCalls(iamRecordFile))
  process.stdout.write(`\n${describeSummary(summary, iamRecordFile)}\n`)
  if (summary.refused.length > 0) {
    throw new Error(
      `The local IAM check refused ${summary.refused.length} call(s) of the stack's functions (listed above)`,
    )
  }
}
