/**
 * Outbound xAPI statements: the connection (through the CLI), which learner activity makes a
 * statement and what it says, delivery with retries and refusals, the log, and manual retries.
 * A record-store stand-in on loopback records the statements and answers the statuses chosen.
 */
import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { gradeQuizAttempt, recordActivity } from '../../shared/services/enrollments/learner-service.ts'
import {
  connect,
  disconnect,
  testConnection,
} from '../../shared/services/deliveries/lrs-connection-service.ts'
import { listLog, retryAllFailed, retryStatement } from '../../shared/services/deliveries/xapi-service.ts'
import type { StatementDelivery } from '../../shared/domain/xapi/delivery.ts'
import { lms } from '../helpers/cli.ts'
import { startRecordStore } from '../helpers/record-store.ts'
import { newTenant, userBody, type TestTenant } from '../helpers/tenants.ts'
import { untilAllRelayed } from '../helpers/outbox.ts'
import { until } from '../helpers/until.ts'

const SECRET = 'lrs-secret-Zq9x'

function connectCli(t: TestTenant, endpoint: string, ...rest: string[]) {
  return lms(
    'lrs',
    'connect',
    '--tenant',
    t.slug,
    '--endpoint',
    endpoint,
    '--key',
    'lrs-key',
    '--secret',
    SECRET,
    ...rest,
  )
}

interface Setup {
  t: TestTenant
  user: { id: string; email: string; first_name: string; last_name: string }
  courseId: string
  modules: { id: string; module_type: string }[]
  enrollmentId: string
}

/** A tenant, a learner, a published course (the given modules) and an enrollment. */
async function setup(moduleTypes: readonly string[] = ['video', 'quiz']): Promise<Setup> {
  const t = await newTenant()
  const u = await t.api.post('/api/v1/users', userBody())
  expect(u.status).toBe(201)
  const c = await t.api.post('/api/v1/courses', { title: `Course ${randomUUID().slice(0, 6)}` })
  expect(c.status).toBe(201)
  const courseId = c.body.data.id as string
  const modules: Setup['modules'] = []
  for (const [i, type] of moduleTypes.entries()) {
    const m = await t.api.post(`/api/v1/courses/${courseId}/modules`, { title: `M${i}`, module_type: type })
    expect(m.status).toBe(201)
    modules.push(m.body.data)
  }
  expect((await t.api.patch(`/api/v1/courses/${courseId}`, { status: 'published' })).status).toBe(200)
  const e = await t.api.post('/api/v1/enrollments', { user_id: u.body.data.id, course_id: courseId })
  expect(e.status).toBe(201)
  return { t, user: u.body.data, courseId, modules, enrollmentId: e.body.data.id as string }
}

const moduleAt = (s: Setup, i: number): string => s.modules[i]?.id ?? ''
const portal = (t: TestTenant) => `https://${t.slug}.localhost`

function logOf(t: TestTenant, ok: (rows: StatementDelivery[]) => boolean, timeoutMs?: number) {
  return until(() => listLog(t.tenant), ok, timeoutMs)
}

describe('xAPI: the connection', () => {
  it('connects, tests with a read-only GET, and never prints the secret', async () => {
    // Prepare
    const t = await newTenant()
    const lrs = await startRecordStore(() => ({ status: 200, body: '{"statements":[]}' }))

    // Act
    const connected = await connectCli(t, `${lrs.endpoint}/`)
    const tested = await lms('lrs', 'test', '--tenant', t.slug)
    const log = await lms('lrs', 'log', '--tenant', t.slug)

    // Assess
    expect(connected.code).toBe(0)
    expect(connected.json).toMatchObject({
      endpoint: lrs.endpoint,
      key: 'lrs-key',
      identity_mode: 'anonymous',
    })
    expect(tested.json).toEqual({ ok: true, http_status: 200 })
    for (const out of [connected, tested, log]) expect(out.stdout).not.toContain(SECRET)
    expect(JSON.stringify(connected.json)).not.toMatch(/secret/i)
    const [get] = lrs.requests
    expect(get?.method).toBe('GET')
    expect(get?.url).toBe('/xapi/statements?limit=1')
    expect(get?.headers['x-experience-api-version']).toBe('1.0.3')
    expect(get?.headers.authorization).toBe(`Basic ${Buffer.from(`lrs-key:${SECRET}`).toString('base64')}`)
  })

  it('requires key and secret on first save; a blank secret keeps the saved one', async () => {
    // Prepare
    const t = await newTenant()
    const lrs = await startRecordStore(() => ({ status: 401 }))

    // Act
    const noSecret = await lms(
      'lrs',
      'connect',
      '--tenant',
      t.slug,
      '--endpoint',
      lrs.endpoint,
      '--key',
      'k',
      '--secret',
      '',
    )
    const noKey = await lms('lrs', 'connect', '--tenant', t.slug, '--endpoint', lrs.endpoint, '--secret', 's')
    await connectCli(t, lrs.endpoint)
    const updated = await lms(
      'lrs',
      'connect',
      '--tenant',
      t.slug,
      '--endpoint',
      lrs.endpoint,
      '--key',
      'key-2',
      '--secret',
      '',
      '--identity-mode',
      'email',
    )
    const tested = await lms('lrs', 'test', '--tenant', t.slug)

    // Assess
    expect(noSecret.code).not.toBe(0)
    expect(noSecret.json.error.code).toBe(400)
    expect(noKey.code).not.toBe(0)
    expect(updated.json).toMatchObject({ key: 'key-2', identity_mode: 'email' })
    expect(tested.json).toMatchObject({ ok: false, http_status: 401 })
    expect(lrs.requests[0]?.headers.authorization).toBe(
      `Basic ${Buffer.from(`key-2:${SECRET}`).toString('base64')}`,
    )
  })

  it("passes the connection test on a record store's 403 (a write-only key is sufficient), not on a bare 403", async () => {
    // Prepare
    const t = await newTenant()
    const other = await newTenant()
    const writeOnly = await startRecordStore(() => ({
      status: 403,
      headers: { 'x-experience-api-version': '1.0.3' },
    }))
    const bucket = await startRecordStore(() => ({ status: 403 }))
    await connect(t.tenant, { endpoint: writeOnly.endpoint, key: 'k', secret: 's' }, 'test')
    await connect(other.tenant, { endpoint: bucket.endpoint, key: 'k', secret: 's' }, 'test')

    // Act
    const tested = await testConnection(t.tenant)
    const bare = await testConnection(other.tenant)

    // Assess
    expect(tested).toEqual({ ok: true, httpStatus: 403, reason: null })
    expect(bare).toEqual({ ok: false, httpStatus: 403, reason: 'http_403' })
    expect(writeOnly.requests).toHaveLength(1)
  })

  it('keeps the connection for new credentials, and makes a new one for another store or actor form', async () => {
    const t = await newTenant()
    const a = await startRecordStore()
    const b = await startRecordStore()
    const first = await connect(t.tenant, { endpoint: a.endpoint, key: 'k', secret: 's' }, 'test')
    const rotated = await connect(t.tenant, { endpoint: a.endpoint, key: 'k2', secret: 's2' }, 'test')
    const moved = await connect(t.tenant, { endpoint: b.endpoint }, 'test')
    const remoded = await connect(t.tenant, { endpoint: b.endpoint, identityMode: 'email' }, 'test')
    expect(rotated.id).toBe(first.id)
    expect(moved.id).not.toBe(first.id)
    expect(remoded.id).not.toBe(moved.id)
    expect(rotated.connectedAt).toBe(first.connectedAt)
    expect(moved.connectedAt > first.connectedAt).toBe(true)
  })

  it('never sends a pending statement to a store the connection moved to: it fails as disconnected', async () => {
    // Prepare
    const s = await setup(['video', 'video'])
    const a = await startRecordStore(() => ({ status: 503 }))
    const b = await startRecordStore()
    await connect(s.t.tenant, { endpoint: a.endpoint, key: 'k', secret: 's' }, 'test')
    await recordActivity(s.t.tenant, s.enrollmentId, { moduleId: moduleAt(s, 0), kind: 'complete' })
    await a.waitFor(1)

    // Act
    await connect(s.t.tenant, { endpoint: b.endpoint }, 'test')
    const [row] = await logOf(s.t, (rows) => rows[0]?.status === 'failed')
    // Made for store a: a manual retry does not send it to b either.
    const retryOne = retryStatement(s.t.tenant, row?.id ?? '', 'test')
    await expect(retryOne).rejects.toThrow(/another record store/)
    const retryAll = await retryAllFailed(s.t.tenant, 'test')
    // Barrier: activity after the move makes statements for b (module 1 and the course), which arrive.
    await recordActivity(s.t.tenant, s.enrollmentId, { moduleId: moduleAt(s, 1), kind: 'complete' })
    const log = await logOf(
      s.t,
      (rows) => rows.length === 3 && rows.every((r) => r.id === row?.id || r.status === 'delivered'),
    )

    // Assess
    expect(row).toMatchObject({ status: 'failed', reason: 'disconnected' })
    expect(retryAll).toEqual([])
    const later = log.filter((r) => r.id !== row?.id)
    expect(later.map((r) => r.status)).toEqual(['delivered', 'delivered'])
    expect(b.requests).toHaveLength(2)
    expect(
      b
        .statements()
        .map((x) => x.statementId)
        .sort(),
    ).toEqual(later.map((r) => r.id).sort())
    expect(log.find((r) => r.id === row?.id)).toMatchObject({
      status: 'failed',
      reason: 'disconnected',
      attempts: row?.attempts,
    })
  })

  it('refuses private, metadata and internal endpoints, and a URL that includes /statements', async () => {
    const t = await newTenant()
    for (const endpoint of [
      'https://10.1.2.3/xapi',
      'https://169.254.169.254/latest',
      'https://lrs.internal/xapi',
      'http://lrs.example.com/xapi',
      'https://lrs.example.com/xapi/statements',
    ]) {
      const r = await connectCli(t, endpoint)
      expect(r.code, endpoint).not.toBe(0)
      expect(r.json.error.code, endpoint).toBe(400)
    }
    expect((await lms('lrs', 'test', '--tenant', t.slug)).json.error.code).toBe(404)
  })
})

describe('xAPI: statements', () => {
  it('sends module completed (score), quiz failed and passed (raw, max, scaled) and course completed', async () => {
    // Prepare
    const s = await setup(['video', 'quiz'])
    const lrs = await startRecordStore()
    expect((await connectCli(s.t, lrs.endpoint)).code).toBe(0)

    // Act
    await recordActivity(s.t.tenant, s.enrollmentId, {
      moduleId: moduleAt(s, 0),
      kind: 'complete',
      score: 80,
    })
    await lrs.waitFor(1)
    await gradeQuizAttempt(s.t.tenant, s.enrollmentId, { moduleId: moduleAt(s, 1), raw: 5, max: 10 })
    await lrs.waitFor(2)
    await gradeQuizAttempt(s.t.tenant, s.enrollmentId, { moduleId: moduleAt(s, 1), raw: 9, max: 10 })
    await lrs.waitFor(5)

    // Assess
    const sent = lrs.statements()
    expect(sent).toHaveLength(5)
    const base = portal(s.t)
    const moduleId = (i: number) => `${base}/xapi/activities/module/${moduleAt(s, i)}`
    const courseId = `${base}/xapi/activities/course/${s.courseId}`
    const verbOf = (b: Record<string, unknown>) => (b.verb as { id: string }).id.split('/').at(-1)
    const find = (verb: string, objectId: string) =>
      sent.find((x) => verbOf(x.body) === verb && (x.body.object as { id: string }).id === objectId)?.body

    expect(find('completed', moduleId(0))).toMatchObject({
      result: { score: { raw: 80, max: 100, min: 0, scaled: 0.8 }, completion: true },
    })
    expect(find('failed', moduleId(1))).toMatchObject({
      result: { score: { raw: 5, max: 10, scaled: 0.5 }, success: false },
    })
    expect(find('passed', moduleId(1))).toMatchObject({
      result: { score: { raw: 9, max: 10, scaled: 0.9 }, success: true },
    })
    expect(find('completed', moduleId(1))).toMatchObject({
      result: { score: { raw: 9, max: 10, scaled: 0.9 }, success: true, completion: true },
    })
    const course = find('completed', courseId)
    expect(course).toMatchObject({ object: { objectType: 'Activity', id: courseId } })
    for (const { req, statementId, body } of sent) {
      expect(req.url).toBe(`/xapi/statements?statementId=${statementId}`)
      expect(body.id).toBe(statementId)
      expect(req.headers['x-experience-api-version']).toBe('1.0.3')
      expect(req.headers['content-type']).toBe('application/json')
      expect(req.headers.authorization).toBe(`Basic ${Buffer.from(`lrs-key:${SECRET}`).toString('base64')}`)
      expect(body.actor).toEqual({ objectType: 'Agent', account: { homePage: base, name: s.user.id } })
      expect(body.context).toMatchObject({ registration: s.enrollmentId, platform: 'lms' })
      if (body !== course) {
        expect(body.context).toMatchObject({ contextActivities: { parent: [{ id: courseId }] } })
      }
      const raw = req.raw.toString('utf8')
      for (const personal of [s.user.first_name, s.user.last_name, s.user.email])
        expect(raw).not.toContain(personal)
    }
    const log = await logOf(s.t, (rows) => rows.length === 5 && rows.every((r) => r.status === 'delivered'))
    expect(log.map((r) => r.status)).toEqual(Array(5).fill('delivered'))
  })

  it('sends mbox in email mode, and never a name', async () => {
    // Prepare
    const s = await setup(['video'])
    const lrs = await startRecordStore()
    expect((await connectCli(s.t, lrs.endpoint, '--identity-mode', 'email')).json.identity_mode).toBe('email')

    // Act
    await recordActivity(s.t.tenant, s.enrollmentId, { moduleId: moduleAt(s, 0), kind: 'complete' })
    await lrs.waitFor(2)

    // Assess
    const sent = lrs.statements()
    expect(sent).toHaveLength(2)
    for (const { body, req } of sent) {
      expect(body.actor).toEqual({ objectType: 'Agent', mbox: `mailto:${s.user.email.toLowerCase()}` })
      expect(req.raw.toString('utf8')).not.toContain(s.user.last_name)
    }
  })

  it('sends nothing for activity before connect or after disconnect', async () => {
    // Prepare
    const s = await setup(['video', 'video', 'video', 'video'])
    const lrs = await startRecordStore()

    // Act
    await recordActivity(s.t.tenant, s.enrollmentId, { moduleId: moduleAt(s, 0), kind: 'complete' })
    // Relayed while nothing is connected.
    await untilAllRelayed(s.t.tenant)
    await connectCli(s.t, lrs.endpoint)
    await recordActivity(s.t.tenant, s.enrollmentId, { moduleId: moduleAt(s, 1), kind: 'complete' })
    await lrs.waitFor(1)
    const disconnected = await lms('lrs', 'disconnect', '--tenant', s.t.slug)
    await recordActivity(s.t.tenant, s.enrollmentId, { moduleId: moduleAt(s, 2), kind: 'complete' })
    // Barrier: every event is relayed, so every statement they will ever make is in the log.
    await untilAllRelayed(s.t.tenant)
    const log = await logOf(s.t, (rows) => rows.every((r) => r.status === 'delivered'))

    // Assess
    expect(disconnected.code).toBe(0)
    expect(Date.parse(disconnected.json.disconnected_at)).not.toBeNaN()
    expect(log.map((r) => r.status)).toEqual(['delivered'])
    const sent = lrs.statements()
    expect(sent).toHaveLength(1)
    expect((sent[0]?.body.object as { id: string }).id).toBe(
      `${portal(s.t)}/xapi/activities/module/${moduleAt(s, 1)}`,
    )
    expect((await lms('lrs', 'test', '--tenant', s.t.slug)).json.error.code).toBe(404)
  })

  it('stops a pending statement at once on disconnect (failed, reason disconnected)', async () => {
    // Prepare
    const s = await setup(['video', 'video'])
    let accept = false
    const lrs = await startRecordStore(() => ({ status: accept ? 204 : 503 }))
    await connectCli(s.t, lrs.endpoint)

    // Act
    await recordActivity(s.t.tenant, s.enrollmentId, { moduleId: moduleAt(s, 0), kind: 'complete' })
    await lrs.waitFor(1)
    // Through the service the CLI calls (the CLI's own disconnect is tested above): a CLI process
    // takes seconds to start on a busy machine, longer than the stack's 1 s retry delays.
    await disconnect(s.t.tenant, 'test')
    const [row] = await logOf(s.t, (rows) => rows[0]?.status === 'failed')
    // Barrier: connected again to a store that now accepts, later activity (module 1 and the course)
    // is sent and arrives; an attempt of the stopped statement still on the wire lands before it.
    accept = true
    await connectCli(s.t, lrs.endpoint)
    await recordActivity(s.t.tenant, s.enrollmentId, { moduleId: moduleAt(s, 1), kind: 'complete' })
    const log = await logOf(
      s.t,
      (rows) => rows.length === 3 && rows.every((r) => r.id === row?.id || r.status === 'delivered'),
    )

    // Assess
    expect(row).toMatchObject({ status: 'failed', reason: 'disconnected' })
    expect(log.find((r) => r.id === row?.id)).toMatchObject({
      status: 'failed',
      reason: 'disconnected',
      attempts: row?.attempts,
    })
    // One request per attempt but the last, which found the connection gone; none started after.
    const stopped = lrs.statements().filter((x) => x.statementId === row?.id)
    expect(stopped).toHaveLength((row?.attempts ?? 0) - 1)
  })
})

describe('xAPI: delivery', () => {
  it('retries after a 500 with the same statement id and byte-identical body', async () => {
    // Prepare
    const s = await setup(['video', 'video'])
    const lrs = await startRecordStore((n) => ({ status: n === 1 ? 500 : 204 }))
    await connectCli(s.t, lrs.endpoint)

    // Act
    await recordActivity(s.t.tenant, s.enrollmentId, { moduleId: moduleAt(s, 0), kind: 'complete' })
    await lrs.waitFor(2)

    // Assess
    const [first, second] = lrs.statements()
    expect(second?.req.url).toBe(first?.req.url)
    expect(second?.req.raw.equals(first?.req.raw ?? Buffer.alloc(0))).toBe(true)
    expect((second?.req.at ?? 0) - (first?.req.at ?? 0)).toBeGreaterThanOrEqual(900)
    const [row] = await logOf(s.t, (rows) => rows[0]?.status === 'delivered')
    expect(row).toMatchObject({ id: first?.statementId, status: 'delivered', attempts: 2, httpStatus: 204 })
  })

  it('stops at once on 400: failed after one request', async () => {
    // Prepare
    const s = await setup(['video', 'video'])
    const lrs = await startRecordStore(() => ({ status: 400 }))
    await connectCli(s.t, lrs.endpoint)

    // Act
    await recordActivity(s.t.tenant, s.enrollmentId, { moduleId: moduleAt(s, 0), kind: 'complete' })
    // The stored outcome is the barrier: a failed row takes no further attempt.
    const [row] = await logOf(s.t, (rows) => rows[0]?.status === 'failed')

    // Assess
    expect(row).toMatchObject({ status: 'failed', attempts: 1, httpStatus: 400, reason: 'http_400' })
    expect(lrs.requests).toHaveLength(1)
    const failed = await lms('lrs', 'log', '--tenant', s.t.slug, '--status', 'failed')
    expect(failed.json.data).toHaveLength(1)
    expect(failed.json.data[0]).toMatchObject({ id: row?.id, status: 'failed', http_status: 400 })
    expect(failed.stdout).not.toContain(SECRET)
  })

  it('retries one failed statement by id, then all failed ones', async () => {
    // Prepare: the store refuses until told otherwise.
    const s = await setup(['video', 'video', 'video', 'video'])
    let accept = false
    const lrs = await startRecordStore(() => ({ status: accept ? 204 : 403 }))
    await connectCli(s.t, lrs.endpoint)
    for (const i of [0, 1, 2]) {
      await recordActivity(s.t.tenant, s.enrollmentId, { moduleId: moduleAt(s, i), kind: 'complete' })
    }
    const failed = await logOf(s.t, (rows) => rows.length === 3 && rows.every((r) => r.status === 'failed'))
    expect(failed.map((r) => r.status)).toEqual(['failed', 'failed', 'failed'])
    accept = true
    const [one] = failed

    // Act
    const single = await lms('lrs', 'retry', '--tenant', s.t.slug, '--id', one?.id ?? '')
    await logOf(s.t, (rows) => rows.find((r) => r.id === one?.id)?.status === 'delivered')
    const all = await lms('lrs', 'retry', '--tenant', s.t.slug, '--all')
    const after = await logOf(s.t, (rows) => rows.every((r) => r.status === 'delivered'))
    const none = await lms('lrs', 'retry', '--tenant', s.t.slug, '--all')

    // Assess
    expect(single.json).toEqual({ requeued: 1, ids: [one?.id] })
    expect(all.json.requeued).toBe(2)
    expect(all.json.ids).not.toContain(one?.id)
    expect(none.json).toEqual({ requeued: 0, ids: [] })
    expect(after.map((r) => r.status)).toEqual(['delivered', 'delivered', 'delivered'])
    const retried = lrs.statements().filter((x) => x.statementId === one?.id)
    expect(retried).toHaveLength(2)
    expect(retried[1]?.req.raw.equals(retried[0]?.req.raw ?? Buffer.alloc(0))).toBe(true)
    const again = await lms('lrs', 'retry', '--tenant', s.t.slug, '--id', one?.id ?? '')
    expect(again.code).not.toBe(0)
  })

  it('connecting through the service sets up the same export', async () => {
    const s = await setup(['video', 'video'])
    const lrs = await startRecordStore()
    await connect(s.t.tenant, { endpoint: lrs.endpoint, key: 'k', secret: 's' }, 'test')
    await recordActivity(s.t.tenant, s.enrollmentId, { moduleId: moduleAt(s, 0), kind: 'complete' })
    expect(await lrs.waitFor(1)).toHaveLength(1)
  })
})
