import { spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { freePort } from '../../local/free-port.ts'
import { startReceiver } from '../helpers/receiver.ts'
import { runCli } from '../helpers/cli.ts'
import { freshEnv, startStack } from '../helpers/stack.ts'
import { until } from '../helpers/until.ts'

/** The direct children of a process (DynamoDB Local's Java process, here). */
function childPids(pid: number): number[] {
  const out = spawnSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' })
  return out.stdout
    .split('\n')
    .map((l) => Number(l.trim()))
    .filter((n) => n > 0)
}

/** SIGTERM, waiting (a minute at most: a busy machine is slow to stop Java) before SIGKILL. */
async function terminate(pid: number): Promise<void> {
  try {
    process.kill(pid, 'SIGTERM')
  } catch {
    return
  }
  for (let i = 0; i < 600; i++) {
    try {
      process.kill(pid, 0)
    } catch {
      return
    }
    await new Promise((r) => setTimeout(r, 100))
  }
  process.kill(pid, 'SIGKILL')
}

const dir = mkdtempSync(join(tmpdir(), 'lms-relay-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('Relay: a crash between saving and sending loses nothing', () => {
  it('delivers an event and a notification saved before the process was killed once the stack is back', async () => {
    const receiver = await startReceiver()
    const env = {
      LMS_DATA_DIR: dir,
      LMS_DYNAMODB_PORT: String(await freePort()),
      LMS_EMULATOR_PORT: String(await freePort()),
      LMS_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      LMS_ALLOW_LOOPBACK_TARGETS: '1',
      LMS_LOG_LEVEL: 'info',
      LMS_OPERATOR_EMAIL: 'operators@example.com',
    }
    const cli = async (...args: string[]) =>
      (await runCli(freshEnv(env), args)).json as Record<string, string | unknown[]>

    // First life: the relay is off, as if the process died before relaying anything.
    const port = await freePort()
    const first = await startStack({ ...env, PORT: String(port), LMS_RELAY: 'off' })
    await first.ready
    const slug = `relay-${randomBytes(3).toString('hex')}`
    await cli('tenant', 'create', '--slug', slug, '--plan', 'growth')
    await cli(
      'webhook',
      'create',
      '--tenant',
      slug,
      '--url',
      `${receiver.url}/hook`,
      '--events',
      'user.created',
    )
    expect((await cli('webhook', 'list', '--tenant', slug)).data).toHaveLength(1)
    const key = String((await cli('api-key', 'create', '--tenant', slug, '--scopes', 'read,write,admin')).key)
    const post = (apiPort: number, path: string, host: string, body: unknown, auth?: string) =>
      new Promise<number>((resolve, reject) => {
        const req = request(
          {
            host: '127.0.0.1',
            port: apiPort,
            method: 'POST',
            path,
            headers: {
              host,
              ...(auth ? { authorization: `Bearer ${auth}` } : {}),
              'content-type': 'application/json',
            },
          },
          (res) => (res.resume(), resolve(res.statusCode ?? 0)),
        )
        req.on('error', reject)
        req.end(JSON.stringify(body))
      })
    const postUser = (email: string, apiPort: number) =>
      post(
        apiPort,
        '/api/v1/users',
        `${slug}.localhost`,
        { email, first_name: 'S', last_name: 'B', role: 'learner' },
        key,
      )
    const status = await postUser('saved@example.com', port)
    expect(status).toBe(201)
    // A notification waits in the same outbox: the operators' copy of a contact request.
    const marker = randomBytes(6).toString('hex')
    const contact = { name: 'Ada', email: 'ada@example.com', message: `Saved before the crash ${marker}` }
    expect(await post(port, '/api/v1/contact', 'www.localhost', contact)).toBe(202)
    // Kill our process (the API, relay and workers) without any chance to clean up. The database
    // outlives it, as DynamoDB does in AWS: stop DynamoDB Local gracefully, so it keeps what it
    // acknowledged (it does not promise durability when it is killed itself).
    const database = childPids(first.pid)
    first.kill('SIGKILL')
    await first.exited
    for (const pid of database) await terminate(pid)
    expect(receiver.requests).toHaveLength(0)

    // Second life: the relay resumes from the stream and the webhook goes out.
    const second = await startStack({ ...env, LMS_OUTBOX_SWEEP_AFTER_MS: '1000' })
    const secondUrl = await second.ready
    const got = await receiver.waitFor(1, 180_000)
    const said = `${first.output()}\n${second.output()}`
      .split('\n')
      .filter((l) => l && !l.includes('"msg":"request"') && !l.includes('npm warn'))
      .slice(-15)
      .join('\n')
    expect(got, said).toHaveLength(1)
    expect(JSON.parse(got[0]?.raw.toString('utf8') ?? '{}')).toMatchObject({
      event: 'user.created',
      data: { email: 'saved@example.com' },
    })
    // Barrier: an event saved after the recovery must arrive too; the saved one came only once.
    expect(await postUser('later@example.com', Number(new URL(secondUrl).port))).toBe(201)
    const both = await receiver.waitFor(2, 180_000)
    const emails = both.map(
      (r) => (JSON.parse(r.raw.toString('utf8')) as { data: { email: string } }).data.email,
    )
    expect(emails.sort(), said).toEqual(['later@example.com', 'saved@example.com'])
    const mail = await until(
      async () => (await cli('mail', 'list', '--template', 'contact_request')).data as { text: string }[],
      (sent) => sent.some((m) => m.text.includes(marker)),
      180_000,
    )
    expect(
      mail.filter((m) => m.text.includes(marker)),
      said,
    ).toHaveLength(1)
    second.kill('SIGTERM')
    await second.exited
    await receiver.close()
    // Two cold starts and a recovery: a limit that only ends a run that hangs.
  }, 600_000)
})
