import { spawn } from 'node:child_process'
import { request } from 'node:http'
import { mkdtempSync, rmSync } from 'node:fs'
import { connect, createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const addr = srv.address()
      srv.close(() => resolve(typeof addr === 'object' && addr ? addr.port : 0))
    })
  })
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1')
    socket.once('connect', () => (socket.destroy(), resolve(true)))
    socket.once('error', () => resolve(false))
  })
}

interface Started {
  readonly output: () => string
  readonly exited: Promise<number | null>
  readonly ready: Promise<boolean>
  kill(signal: NodeJS.Signals): void
}

function start(env: Record<string, string>): Started {
  const child = spawn(process.execPath, ['--import', 'tsx', 'local/start.ts'], {
    env: { ...process.env, LMS_LOG_LEVEL: 'silent', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve))
  const ready = new Promise<boolean>((resolve) => {
    const onData = (c: Buffer) => {
      out += c.toString()
      if (out.includes('listening on http://')) resolve(true)
    }
    child.stdout.on('data', onData)
    child.stderr.on('data', onData)
    void exited.then(() => resolve(false))
  })
  return { output: () => out, exited, ready, kill: (s) => child.kill(s) }
}

const dirs: string[] = []
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })))

describe('npm start', () => {
  it('says plainly that Java is missing', async () => {
    const run = start({ PATH: '/nonexistent', LMS_DATA_DIR: ':memory:', PORT: String(await freePort()) })
    expect(await run.exited).toBe(1)
    expect(run.output()).toMatch(/Java was not found.*Java 17/)
  })

  it('creates the demo tenant on first start only, keeps data between runs, and stops on SIGTERM', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lms-data-'))
    dirs.push(dir)
    const ports = async () => ({
      PORT: String(await freePort()),
      LMS_DYNAMODB_PORT: String(await freePort()),
      LMS_EMULATOR_PORT: String(await freePort()),
      LMS_DATA_DIR: dir,
    })
    const firstEnv = await ports()
    const first = start({ ...firstEnv, LMS_LOG_LEVEL: 'info' })
    expect(await first.ready).toBe(true)
    const key = /admin API key \(shown once\): (lms_live_\w+)/.exec(first.output())?.[1] ?? ''
    expect(key).not.toBe('')
    const shownOnce = first.output().length
    const reply = await new Promise<number>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: firstEnv.PORT,
          path: '/api/v1/users',
          headers: { host: 'demo.localhost', authorization: `Bearer ${key}` },
        },
        (res) => (res.resume(), resolve(res.statusCode ?? 0)),
      )
      req.on('error', reject)
      req.end()
    })
    expect(reply).toBe(200)
    await new Promise((r) => setTimeout(r, 200))
    const logged = first.output().slice(shownOnce)
    expect(logged).toContain('"msg":"request"')
    expect(logged).toContain('"status":200')
    expect(logged).not.toContain(key)
    expect(logged).not.toContain(key.slice(12))
    first.kill('SIGTERM')
    const t0 = Date.now()
    await first.exited
    expect(Date.now() - t0).toBeLessThan(5000)
    expect(await portOpen(Number(firstEnv.PORT))).toBe(false)
    expect(await portOpen(Number(firstEnv.LMS_DYNAMODB_PORT))).toBe(false)

    const second = start(await ports())
    expect(await second.ready).toBe(true)
    expect(second.output()).not.toMatch(/admin API key/)
    second.kill('SIGINT')
    await second.exited
  })
})
