import { spawn, spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { request } from 'node:http'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { startReceiver } from '../helpers/receiver.ts'

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const addr = srv.address()
      srv.close(() => resolve(typeof addr === 'object' && addr ? addr.port : 0))
    })
  })
}

/** The direct children of a process (DynamoDB Local's Java process, here). */
function childPids(pid: number): number[] {
  const out = spawnSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' })
  return out.stdout
    .split('\n')
    .map((l) => Number(l.trim()))
    .filter((n) => n > 0)
}

async function terminate(pid: number): Promise<void> {
  try {
    process.kill(pid, 'SIGTERM')
  } catch {
    return
  }
  for (let i = 0; i < 100; i++) {
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
  it('delivers an event saved before the process was killed once the stack is back', async () => {
    const receiver = await startReceiver()
    const env = {
      ...process.env,
      LMS_DATA_DIR: dir,
      LMS_DYNAMODB_PORT: String(await freePort()),
      LMS_EMULATOR_PORT: String(await freePort()),
      LMS_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      LMS_ALLOW_LOOPBACK_TARGETS: '1',
      LMS_LOG_LEVEL: 'info',
      LMS_DYNAMODB_ENDPOINT: '',
    }
    // What the two processes said, shown when the event does not arrive.
    let transcript = ''
    const start = (extra: Record<string, string>) => {
      const child = spawn(process.execPath, ['--import', 'tsx', 'local/start.ts'], {
        env: { ...env, ...extra },
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      const ready = new Promise<void>((resolve, reject) => {
        let out = ''
        child.stderr.on('data', (c: Buffer) => (transcript += c.toString()))
        child.stdout.on('data', (c: Buffer) => {
          out += c.toString()
          transcript += c.toString()
          if (out.includes('listening on http://')) resolve()
        })
        child.once('exit', (code) => reject(new Error(`exited ${code}`)))
      })
      return { child, ready }
    }
    const cli = (...args: string[]) => {
      const out = spawnSync(process.execPath, ['bin/lms.mjs', ...args], { env, encoding: 'utf8' })
      return JSON.parse(out.stdout.trim().split('\n').at(-1) ?? '{}') as Record<string, string>
    }

    // First life: the relay is off, as if the process died before relaying anything.
    const port = await freePort()
    const first = start({ PORT: String(port), LMS_RELAY: 'off' })
    await first.ready
    const slug = `relay-${randomBytes(3).toString('hex')}`
    cli('tenant', 'create', '--slug', slug, '--plan', 'growth')
    cli('webhook', 'create', '--tenant', slug, '--url', `${receiver.url}/hook`, '--events', 'user.created')
    expect(cli('webhook', 'list', '--tenant', slug).data).toHaveLength(1)
    const key = cli('api-key', 'create', '--tenant', slug, '--scopes', 'read,write,admin').key ?? ''
    const postUser = (email: string, apiPort: number) =>
      new Promise<number>((resolve, reject) => {
        const body = JSON.stringify({ email, first_name: 'S', last_name: 'B', role: 'learner' })
        const req = request(
          {
            host: '127.0.0.1',
            port: apiPort,
            method: 'POST',
            path: '/api/v1/users',
            headers: {
              host: `${slug}.localhost`,
              authorization: `Bearer ${key}`,
              'content-type': 'application/json',
            },
          },
          (res) => (res.resume(), resolve(res.statusCode ?? 0)),
        )
        req.on('error', reject)
        req.end(body)
      })
    const status = await postUser('saved@example.com', port)
    expect(status).toBe(201)
    // Kill our process (the API, relay and workers) without any chance to clean up. The database
    // outlives it, as DynamoDB does in AWS: stop DynamoDB Local gracefully, so it keeps what it
    // acknowledged (it does not promise durability when it is killed itself).
    const database = childPids(first.child.pid ?? 0)
    process.kill(first.child.pid ?? 0, 'SIGKILL')
    await new Promise((r) => first.child.once('exit', r))
    for (const pid of database) await terminate(pid)
    expect(receiver.requests).toHaveLength(0)

    // Second life: the relay resumes from the stream and the webhook goes out.
    const secondPort = await freePort()
    const second = start({ PORT: String(secondPort), LMS_OUTBOX_SWEEP_AFTER_MS: '1000' })
    await second.ready
    const got = await receiver.waitFor(1, 45_000)
    const said = transcript
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
    expect(await postUser('later@example.com', secondPort)).toBe(201)
    const both = await receiver.waitFor(2, 45_000)
    const emails = both.map(
      (r) => (JSON.parse(r.raw.toString('utf8')) as { data: { email: string } }).data.email,
    )
    expect(emails.sort(), said).toEqual(['later@example.com', 'saved@example.com'])
    second.child.kill('SIGTERM')
    await new Promise((r) => second.child.once('exit', r))
    await receiver.close()
  }, 150_000)
})
