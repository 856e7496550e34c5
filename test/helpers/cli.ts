/** Runs the operator CLI as a user would (`npx lms ...`), against the test run's stores. */
import { spawn } from 'node:child_process'
import { inject } from 'vitest'

export interface CliResult {
  readonly code: number | null
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the CLI prints arbitrary JSON
  readonly json: any
  readonly stdout: string
}

export function lms(...args: string[]): Promise<CliResult> {
  return runCli(
    {
      ...process.env,
      AWS_ENDPOINT_URL_DYNAMODB: '',
      AWS_ENDPOINT_URL_SQS: '',
      LMS_DYNAMODB_PORT: inject('dynamoPort'),
      LMS_EMULATOR_PORT: inject('emulatorPort'),
    },
    args,
  )
}

/** `bin/lms.mjs` with `env`; `json` is the last line it printed, parsed (undefined if it is not JSON). */
export function runCli(env: NodeJS.ProcessEnv, args: string[]): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['bin/lms.mjs', ...args], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()))
    child.on('error', reject)
    child.on('close', (code) => {
      let json: unknown = undefined
      try {
        json = JSON.parse(stdout.trim().split('\n').at(-1) ?? '')
      } catch {
        json = undefined
      }
      resolve({ code, json, stdout })
    })
  })
}
