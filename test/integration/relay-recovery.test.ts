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
      LMS_LOG_LEVEL: 'silent',
      LMS_DYNAMODB_ENDPOINT: '',
    }
    const start = (extra: Record<string, string>) => {
      const child = spawn(process.execPath, ['--import', 'tsx', 'local/start.ts'], {
        env: { ...env, ...extra },
        stdio: ['ignore', 'pipe', 'inherit'],
        detached: true,
      })
      const ready = new Promise<void>((resolve, reject) => {
        let out = ''
        child.stdout.on('data', (c: Buffer) => {
          out += c.toString()
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
    const status = await new Promise<number>((resolve, reject) => {
      const body = JSON.stringify({
        email: 'saved@example.com',
        first_name: 'S',
        last_name: 'B',
        role: 'learner',
      })
      const req = request(
        {
          host: '127.0.0.1',
          port,
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
    expect(status).toBe(201)
    // Kill the whole process group (Node and DynamoDB Local) without any chance to clean up.
    process.kill(-(first.child.pid ?? 0), 'SIGKILL')
    await new Promise((r) => first.child.once('exit', r))
    expect(receiver.requests).toHaveLength(0)

    // Second life: the relay resumes from the stream and the webhook goes out.
    const second = start({ PORT: String(await freePort()), LMS_OUTBOX_SWEEP_AFTER_MS: '1000' })
    await second.ready
    const got = await receiver.waitFor(1, 45_000)
    expect(got).toHaveLength(1)
    expect(JSON.parse(got[0]?.raw.toString('utf8') ?? '{}')).toMatchObject({
      event: 'user.created',
      data: { email: 'saved@example.com' },
    })
    await new Promise((r) => setTimeout(r, 1500))
    expect(receiver.requests).toHaveLength(1)
    process.kill(-(second.child.pid ?? 0), 'SIGTERM')
    await new Promise((r) => second.child.once('exit', r))
    await receiver.close()
  }, 150_000)
})
