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

/** A GET on the demo tenant's host with its admin key: the status and the parsed body. */
function getJson(port: string, key: string, path: string): Promise<{ status: number; body: Body }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path, headers: { host: 'demo.localhost', authorization: `Bearer ${key}` } },
      (res) => {
        let text = ''
        res.on('data', (c: Buffer) => (text += c.toString()))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as Body }))
      },
    )
    req.on('error', reject)
    req.end()
  })
}

type Row = Record<string, unknown>
interface Body {
  readonly data: Row[] & Row
  readonly meta: { readonly total?: number } | null
}

/** The list's rows, asserting the answer was 200. */
async function list(port: string, key: string, path: string): Promise<{ rows: Row[]; total: number }> {
  const { status, body } = await getJson(port, key, path)
  expect(status, path).toBe(200)
  return { rows: body.data, total: body.meta?.total ?? body.data.length }
}

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
      const first = await startStack({
        ...firstPorts,
        LMS_DATA_DIR: dir,
        LMS_LOG_LEVEL: 'info',
        LMS_DEMO_DATA: 'on',
      })
      await first.ready
      const key = /admin API key \(shown once\): (lms_live_\w+)/.exec(first.output())?.[1] ?? ''
      expect(key).not.toBe('')
      const seeded = await expectDemoData(firstPorts.PORT, key)
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

      const secondPorts = await freePorts()
      const second = await startStack({ ...secondPorts, LMS_DATA_DIR: dir, LMS_DEMO_DATA: 'on' })
      await second.ready
      expect(second.output()).not.toMatch(/admin API key/)
      // The sample data is the first start's only: a restart adds none.
      expect((await list(secondPorts.PORT, key, '/api/v1/users')).total).toBe(seeded.users)
      expect((await list(secondPorts.PORT, key, '/api/v1/enrollments?per_page=100')).total).toBe(
        seeded.enrollments,
      )
      second.kill('SIGINT')
      expect(await second.exited).toBe(0)
    },
    twoColdStarts,
  )

  it('starts the demo tenant empty with LMS_DEMO_DATA=off', async () => {
    const ports = await freePorts()
    const run = await startStack({ ...ports, LMS_DATA_DIR: ':memory:', LMS_DEMO_DATA: 'off' })
    await run.ready
    const key = /admin API key \(shown once\): (lms_live_\w+)/.exec(run.output())?.[1] ?? ''
    expect(key).not.toBe('')
    for (const path of ['/api/v1/users', '/api/v1/groups', '/api/v1/courses', '/api/v1/enrollments']) {
      expect((await list(ports.PORT, key, path)).total, path).toBe(0)
    }
    run.kill('SIGTERM')
    expect(await run.exited).toBe(0)
  }, 300_000)
})

/**
 * What the first start gave the demo tenant, seen over the API with its printed key: people in
 * groups, published courses with modules, enrollments in every status, a certificate, a job role
 * with skills, and reports with rows. Returns the counts a restart must leave as they are.
 */
async function expectDemoData(port: string, key: string): Promise<{ users: number; enrollments: number }> {
  const users = await list(port, key, '/api/v1/users')
  expect(users.total).toBeGreaterThan(0)

  const groups = await list(port, key, '/api/v1/groups')
  expect(groups.rows.length).toBeGreaterThan(0)
  for (const g of groups.rows) expect(g.member_count, String(g.name)).toBeGreaterThan(0)

  const courses = await list(port, key, '/api/v1/courses')
  expect(courses.rows.length).toBeGreaterThan(0)
  for (const c of courses.rows) {
    expect(c.status, String(c.title)).toBe('published')
    expect((await list(port, key, `/api/v1/courses/${String(c.id)}/modules`)).rows.length).toBeGreaterThan(0)
  }

  const enrollments = await list(port, key, '/api/v1/enrollments?per_page=100')
  expect(new Set(enrollments.rows.map((e) => e.status))).toEqual(
    new Set(['active', 'completed', 'dropped', 'expired', 'waitlisted', 'pending_approval']),
  )
  const completed = enrollments.rows.find((e) => e.status === 'completed')
  const detail = await getJson(port, key, `/api/v1/enrollments/${String(completed?.id)}`)
  expect(detail.body.data.certificate_id).toEqual(expect.any(String))

  const roles = await list(port, key, '/api/v1/job-roles')
  expect(roles.rows.some((r) => Array.isArray(r.required_skills) && r.required_skills.length > 0)).toBe(true)

  for (const report of ['enrollments', 'completions', 'courses/performance', 'users/activity']) {
    expect((await list(port, key, `/api/v1/reports/${report}`)).rows.length, report).toBeGreaterThan(0)
  }
  return { users: users.total, enrollments: enrollments.total }
}
