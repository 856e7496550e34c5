import { request } from 'node:http'
import { mkdtempSync, rmSync } from 'node:fs'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { freePorts, startStack } from '../helpers/stack.ts'
import { until } from '../helpers/until.ts'

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1')
    socket.once('connect', () => (socket.destroy(), resolve(true)))
    socket.once('error', () => resolve(false))
  })
}

/**
 * Two cold starts of the stack and a stop, each awaited as an event (the ready line, the exit).
 * This limit only ends a run that hangs: it is far above what a busy 2-core machine takes.
 */
const twoColdStarts = 600_000

const dirs: string[] = []
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })))

describe('npm start', () => {
  it('says plainly that Java is missing', async () => {
    const run = await startStack({ PATH: '/nonexistent', LMS_DATA_DIR: ':memory:' })
    expect(await run.exited).toBe(1)
    expect(run.output()).toMatch(/Java was not found.*Java 17/)
  }, 120_000)

  it(
    'creates the demo tenant on first start only, keeps data between runs, and stops on SIGTERM',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'lms-data-'))
      dirs.push(dir)
      const firstPorts = await freePorts()
      const first = await startStack({ ...firstPorts, LMS_DATA_DIR: dir, LMS_LOG_LEVEL: 'info' })
      await first.ready
      const key = /admin API key \(shown once\): (lms_live_\w+)/.exec(first.output())?.[1] ?? ''
      expect(key).not.toBe('')
      const shownOnce = first.output().length
      const reply = await new Promise<number>((resolve, reject) => {
        const req = request(
          {
            host: '127.0.0.1',
            port: firstPorts.PORT,
            path: '/api/v1/users',
            headers: { host: 'demo.localhost', authorization: `Bearer ${key}` },
          },
          (res) => (res.resume(), resolve(res.statusCode ?? 0)),
        )
        req.on('error', reject)
        req.end()
      })
      expect(reply).toBe(200)
      // The request's log line follows its answer: wait for it rather than for a fixed while.
      const logged = await until(
        async () => first.output().slice(shownOnce),
        (out) => out.includes('"msg":"request"'),
        60_000,
      )
      expect(logged).toContain('"msg":"request"')
      expect(logged).toContain('"status":200')
      expect(logged).not.toContain(key)
      expect(logged).not.toContain(key.slice(12))

      first.kill('SIGTERM')
      const t0 = Date.now()
      expect(await first.exited).toBe(0)
      // The stack stops waiting for its parts after 4 s and exits; one that ignored the signal
      // would never exit. The bound leaves a loaded machine room to schedule the exit.
      expect(Date.now() - t0).toBeLessThan(30_000)
      for (const port of [firstPorts.PORT, firstPorts.LMS_DYNAMODB_PORT, firstPorts.LMS_EMULATOR_PORT]) {
        // The database's process is gone a moment after ours: wait for its port to be let go.
        expect(
          await until(
            () => portOpen(Number(port)),
            (open) => !open,
            60_000,
          ),
          `port ${port}`,
        ).toBe(false)
      }

      const second = await startStack({ LMS_DATA_DIR: dir })
      await second.ready
      expect(second.output()).not.toMatch(/admin API key/)
      second.kill('SIGINT')
      expect(await second.exited).toBe(0)
    },
    twoColdStarts,
  )
})
