/**
 * Statement export rules the happy paths do not show: the retry schedule's end and what it retries,
 * retry-all's cap per call, the record-store secret at rest, and at-least-once safety of the relay's
 * fan-out and of the worker's attempts. A record-store stand-in on loopback answers the statuses chosen.
 */
import { randomUUID } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { open } from '../../shared/crypto/secret-box.ts'
import { newEvent } from '../../shared/domain/events.ts'
import { recordActivity } from '../../shared/services/enrollments/learner-service.ts'
import {
  connect,
  disconnect,
  recordStoreSecretOf,
} from '../../shared/services/deliveries/lrs-connection-service.ts'
import {
  attemptStatement,
  fanOutStatements,
  listLog,
  retryAllFailed,
} from '../../shared/services/deliveries/xapi-service.ts'
import type { StatementDelivery } from '../../shared/domain/xapi/delivery.ts'
import { batchPut, getItem } from '../../shared/store/core/db.ts'
import { keys } from '../../shared/store/core/keys.ts'
import { appendEvent, type PendingEvent } from '../../shared/store/outbox/outbox-store.ts'
import { insertStatement } from '../../shared/store/deliveries/xapi-store.ts'
import { startRecordStore, type RecordStore } from '../helpers/record-store.ts'
import { newTenant, userBody, type TestTenant } from '../helpers/tenants.ts'
import { untilAllRelayed } from '../helpers/outbox.ts'
import { until } from '../helpers/until.ts'

/**
 * How long a wait on the statement pipeline may take before it counts as hung: seconds on an idle
 * machine, minutes on a loaded 2-core one (a run at load 27 took 147 s for one test).
 */
const PIPELINE_MS = 240_000
vi.setConfig({ testTimeout: 900_000 })

const closers: (() => Promise<void>)[] = []
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()))
})

function logOf(t: TestTenant, ok: (rows: StatementDelivery[]) => boolean, timeoutMs = PIPELINE_MS) {
  return until(() => listLog(t.tenant), ok, timeoutMs)
}

interface Setup {
  t: TestTenant
  userId: string
  moduleId: string
  otherModuleId: string
  enrollmentId: string
}

/** A tenant, a learner, a published course of two video modules and an enrollment. */
async function setup(): Promise<Setup> {
  const t = await newTenant()
  const u = await t.api.post('/api/v1/users', userBody())
  expect(u.status).toBe(201)
  const c = await t.api.post('/api/v1/courses', { title: `Course ${randomUUID().slice(0, 6)}` })
  expect(c.status).toBe(201)
  const courseId = c.body.data.id as string
  const moduleIds: string[] = []
  for (const title of ['M0', 'M1']) {
    const m = await t.api.post(`/api/v1/courses/${courseId}/modules`, { title, module_type: 'video' })
    expect(m.status).toBe(201)
    moduleIds.push(m.body.data.id as string)
  }
  expect((await t.api.patch(`/api/v1/courses/${courseId}`, { status: 'published' })).status).toBe(200)
  const e = await t.api.post('/api/v1/enrollments', { user_id: u.body.data.id, course_id: courseId })
  expect(e.status).toBe(201)
  return {
    t,
    userId: u.body.data.id as string,
    moduleId: moduleIds[0] ?? '',
    otherModuleId: moduleIds[1] ?? '',
    enrollmentId: e.body.data.id as string,
  }
}

/** A store that drops the connection without an answer on the first PUT, and answers 204 after. */
async function resettingStore(): Promise<{ endpoint: string; puts: () => number }> {
  let puts = 0
  const server: Server = createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      if (req.method === 'PUT') puts += 1
      if (req.method === 'PUT' && puts === 1) {
        req.socket.destroy()
        return
      }
      res.writeHead(204)
      res.end()
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  closers.push(
    () =>
      new Promise<void>((r) => {
        server.closeAllConnections()
        server.close(() => r())
      }),
  )
  const { port } = server.address() as AddressInfo
  return { endpoint: `http://127.0.0.1:${port}/xapi`, puts: () => puts }
}

/**
 * What the store received of a delivered `row`'s statement: at most one request per attempt the
 * row counts, at least the one it answered, each with the statement's id and the same bytes. Copies
 * of a fan-out or of a queue message add no request. A store answering 204 leaves only a timed-out
 * attempt to retry, and a loaded machine can let one time out (the test stack's deadline is 1.5 s),
 * before its request left or after it arrived: its retry is one more attempt, never a second
 * request beside it.
 */
function expectOneRequestPerAttempt(lrs: RecordStore, row: StatementDelivery | undefined): void {
  expect(row).toMatchObject({ status: 'delivered', httpStatus: 204 })
  const puts = lrs.statements().filter((x) => x.statementId === row?.id)
  expect(puts.length).toBeGreaterThanOrEqual(1)
  expect(puts.length).toBeLessThanOrEqual(row?.attempts ?? 0)
  for (const put of puts) expect(put.req.raw.equals(puts[0]?.req.raw ?? Buffer.alloc(0))).toBe(true)
}

/** A pending or failed log row written straight to the store, with no queue message behind it. */
function quietRow(
  connectionId: string,
  overrides: Partial<StatementDelivery> = {},
  at = new Date().toISOString(),
): StatementDelivery {
  const id = randomUUID()
  return {
    id,
    eventId: randomUUID(),
    connectionId,
    madeFor: { endpoint: '', identityMode: 'anonymous' },
    verb: 'completed',
    objectId: `https://example.com/xapi/activities/module/${randomUUID()}`,
    userId: randomUUID(),
    enrollmentId: randomUUID(),
    status: 'pending',
    attempts: 0,
    httpStatus: null,
    reason: null,
    body: JSON.stringify({ id, verb: { id: 'http://adlnet.gov/expapi/verbs/completed' } }),
    manualRetries: 0,
    createdAt: at,
    updatedAt: at,
    attemptRecorded: true,
    ...overrides,
  }
}

describe('xAPI rules: the retry schedule', () => {
  it('fails after exactly five attempts on 503, each the same statement id and bytes', async () => {
    // Prepare: the store answers 503 to the first statement it sees, 204 to any other.
    const s = await setup()
    let refused: string | null | undefined
    const lrs = await startRecordStore((_, req) => {
      const id = new URL(req.url, 'http://store').searchParams.get('statementId')
      refused ??= id
      return { status: id === refused ? 503 : 204 }
    })
    await connect(s.t.tenant, { endpoint: lrs.endpoint, key: 'k', secret: 's' }, 'test')

    // Act
    await recordActivity(s.t.tenant, s.enrollmentId, { moduleId: s.moduleId, kind: 'complete' })
    const [row] = await logOf(s.t, (rows) => rows[0]?.status === 'failed')
    // Barrier: a later statement (the second module) must arrive; a sixth attempt, or the fifth
    // still on the wire after a timeout, would have landed before it.
    await recordActivity(s.t.tenant, s.enrollmentId, { moduleId: s.otherModuleId, kind: 'complete' })
    await untilAllRelayed(s.t.tenant, PIPELINE_MS)
    const log = await logOf(
      s.t,
      (rows) => rows.length > 1 && rows.every((r) => r.id === row?.id || r.status === 'delivered'),
    )

    // Assess
    expect(row).toMatchObject({ status: 'failed', attempts: 5 })
    // The last answer was a 503, unless a stalled machine let that attempt time out first.
    expect(['http_503', 'timeout']).toContain(row?.reason)
    expect(log.find((r) => r.id === row?.id)).toMatchObject({ status: 'failed', attempts: 5 })
    const later = log.filter((r) => r.id !== row?.id)
    for (const r of later) expectOneRequestPerAttempt(lrs, r)
    // One request per attempt, none after the fifth (an attempt a stalled machine timed out before
    // its request left is an attempt without one).
    const sent = lrs.statements().filter((x) => x.statementId === row?.id)
    expect(sent.length).toBeGreaterThanOrEqual(1)
    expect(sent.length).toBeLessThanOrEqual(5)
    expect(lrs.requests).toHaveLength(
      sent.length +
        later.reduce((n, r) => n + lrs.statements().filter((x) => x.statementId === r.id).length, 0),
    )
    const [first] = sent
    for (const put of sent) {
      expect(put.req.method).toBe('PUT')
      expect(put.statementId).toBe(row?.id)
      expect(put.req.url).toBe(first?.req.url)
      expect(put.req.raw.equals(first?.req.raw ?? Buffer.alloc(0))).toBe(true)
    }
  })

  it.each([408, 429])(
    'retries after %i and delivers when the store accepts the next attempt',
    async (code) => {
      // Prepare
      const s = await setup()
      const lrs = await startRecordStore((n) => ({ status: n === 1 ? code : 204 }))
      await connect(s.t.tenant, { endpoint: lrs.endpoint, key: 'k', secret: 's' }, 'test')

      // Act
      await recordActivity(s.t.tenant, s.enrollmentId, { moduleId: s.moduleId, kind: 'complete' })
      const [row] = await logOf(s.t, (rows) => rows[0]?.status === 'delivered')

      // Assess: one request per attempt (a loaded machine may add a timed-out one), the same bytes
      expect(row).toMatchObject({ status: 'delivered', httpStatus: 204, reason: null })
      expect(row?.attempts).toBeGreaterThanOrEqual(2)
      const sent = lrs.statements()
      expect(sent).toHaveLength(row?.attempts ?? 0)
      for (const put of sent) {
        expect(put.statementId).toBe(row?.id)
        expect(put.req.raw.equals(sent[0]?.req.raw ?? Buffer.alloc(0))).toBe(true)
      }
    },
  )

  it('retries after the store dropped the connection without an answer', async () => {
    // Prepare
    const s = await setup()
    const lrs = await resettingStore()
    await connect(s.t.tenant, { endpoint: lrs.endpoint, key: 'k', secret: 's' }, 'test')

    // Act
    await recordActivity(s.t.tenant, s.enrollmentId, { moduleId: s.moduleId, kind: 'complete' })
    const [row] = await logOf(s.t, (rows) => rows[0]?.status === 'delivered')

    // Assess
    expect(row).toMatchObject({ status: 'delivered', httpStatus: 204 })
    expect(row?.attempts).toBeGreaterThanOrEqual(2)
    expect(lrs.puts()).toBe(row?.attempts)
  })

  it('retries after an attempt that timed out', async () => {
    // Prepare: the first answer comes after the attempt's deadline (1.5 s in tests).
    const s = await setup()
    const lrs = await startRecordStore((n) => (n === 1 ? { status: 204, delayMs: 3000 } : { status: 204 }))
    await connect(s.t.tenant, { endpoint: lrs.endpoint, key: 'k', secret: 's' }, 'test')

    // Act
    await recordActivity(s.t.tenant, s.enrollmentId, { moduleId: s.moduleId, kind: 'complete' })
    const [row] = await logOf(s.t, (rows) => rows[0]?.status === 'delivered')

    // Assess: the late answer did not count; a later attempt delivered
    expect(row).toMatchObject({ status: 'delivered', httpStatus: 204 })
    expect(row?.attempts).toBeGreaterThanOrEqual(2)
    expect(lrs.statements()).toHaveLength(row?.attempts ?? 0)
  })
})

describe('xAPI rules: retry all', () => {
  it('re-queues at most 500 failed statements a call; the next call takes the rest', async () => {
    // Prepare: 501 failed rows and a store that now accepts
    const t = await newTenant()
    const lrs = await startRecordStore(() => ({ status: 204 }))
    const connection = await connect(t.tenant, { endpoint: lrs.endpoint, key: 'k', secret: 's' }, 'test')
    // One row written as the store writes it, then 500 copies of that item under other ids, in bulk.
    const template = quietRow(connection.id, {
      madeFor: { endpoint: connection.endpoint, identityMode: connection.identityMode },
      status: 'failed',
      attempts: 5,
      httpStatus: 503,
      reason: 'http_503',
    })
    expect(await insertStatement(t.tenant, template)).toBe(true)
    const item = await getItem(keys.xapiStatement(t.tenant, template.id), { ConsistentRead: true })
    expect(item).toMatchObject({ id: template.id, status: 'failed' })
    const ids = [template.id, ...Array.from({ length: 500 }, () => randomUUID())]
    await batchPut(
      ids.slice(1).map((id) => ({ ...item, ...keys.xapiStatement(t.tenant, id), id })),
      4,
    )
    expect((await listLog(t.tenant, 'failed')).length).toBe(501)

    // Act
    const first = await retryAllFailed(t.tenant, 'test')
    const second = await retryAllFailed(t.tenant, 'test')

    // Assess
    expect(first).toHaveLength(500)
    expect(second).toHaveLength(1)
    expect(new Set([...first, ...second])).toEqual(new Set(ids))
    const log = await logOf(t, (all) => all.every((r) => r.status === 'delivered'))
    expect(log.filter((r) => r.status === 'delivered')).toHaveLength(501)
    expect(log.every((r) => r.manualRetries === 1)).toBe(true)
    expect(await retryAllFailed(t.tenant, 'test')).toEqual([])
  })
})

describe('xAPI rules: the connection secret', () => {
  it('keeps the record-store secret sealed at rest, and deletes it on disconnect', async () => {
    // Prepare
    const t = await newTenant()
    const secret = `lrs-secret-${randomUUID()}`

    // Act
    await connect(t.tenant, { endpoint: 'https://127.0.0.1:9/xapi', key: 'lrs-key', secret }, 'test')
    const item = await getItem(keys.lrsConnection(t.tenant), { ConsistentRead: true })
    await disconnect(t.tenant, 'test')
    const afterDisconnect = await getItem(keys.lrsConnection(t.tenant), { ConsistentRead: true })

    // Assess
    expect(item).toBeDefined()
    const raw = JSON.stringify(item)
    expect(raw).not.toContain(secret)
    expect(raw).not.toContain(Buffer.from(secret).toString('base64'))
    expect(raw).not.toContain(Buffer.from(`lrs-key:${secret}`).toString('base64'))
    const sealed = String(item?.sealed_secret)
    expect(sealed.startsWith('v3.')).toBe(true)
    expect(await open(sealed, recordStoreSecretOf(t.tenant, String(item?.id)))).toBe(secret)
    expect(afterDisconnect).toBeUndefined()
  })
})

describe('xAPI rules: at-least-once', () => {
  it('makes one log row, and one request per attempt, for an outbox event fanned out more than once', async () => {
    // Prepare
    const t = await newTenant()
    const u = await t.api.post('/api/v1/users', userBody())
    expect(u.status).toBe(201)
    const lrs = await startRecordStore()
    await connect(t.tenant, { endpoint: lrs.endpoint, key: 'k', secret: 's' }, 'test')
    const event = newEvent(
      'module.completed',
      {
        enrollmentId: randomUUID(),
        userId: u.body.data.id,
        courseId: randomUUID(),
        moduleId: randomUUID(),
        moduleType: 'video',
      },
      new Date().toISOString(),
    )
    const pending: Pick<PendingEvent, 'event' | 'recordedAt'> = {
      event,
      recordedAt: new Date().toISOString(),
    }

    // Act: the relay takes the outbox event while two more fan-outs of it run at once, and one after.
    await appendEvent(t.tenant, event)
    const made = await Promise.all([fanOutStatements(t.tenant, pending), fanOutStatements(t.tenant, pending)])
    await logOf(t, (rows) => rows[0]?.status === 'delivered')
    const again = await fanOutStatements(t.tenant, pending)
    // Barrier: the relay has handed the event on (its fan-out done), and a later event's statement,
    // queued after every copy of the first one's message, must arrive.
    await untilAllRelayed(t.tenant, PIPELINE_MS)
    const later = newEvent(
      'module.completed',
      { ...event.data, moduleId: randomUUID() },
      new Date().toISOString(),
    )
    await appendEvent(t.tenant, later)
    const log = await logOf(t, (rows) => rows.length === 2 && rows.every((r) => r.status === 'delivered'))

    // Assess
    expect(made).toEqual([1, 1])
    expect(again).toBe(1)
    const first = log.filter((r) => r.eventId === event.id)
    expect(first).toHaveLength(1)
    expect(first[0]).toMatchObject({ eventId: event.id, status: 'delivered', httpStatus: 204 })
    expectOneRequestPerAttempt(lrs, first[0])
    const second = log.find((r) => r.eventId === later.id)
    expectOneRequestPerAttempt(lrs, second)
    expect(lrs.statements().length).toBeLessThanOrEqual((first[0]?.attempts ?? 0) + (second?.attempts ?? 0))
  })

  it('makes one request per attempt however many copies of an attempt message are handled at once', async () => {
    // Prepare: a pending row with no queue message behind it, so only this test's calls touch it
    const t = await newTenant()
    const lrs = await startRecordStore()
    const connection = await connect(t.tenant, { endpoint: lrs.endpoint, key: 'k', secret: 's' }, 'test')
    const row = quietRow(connection.id)
    expect(await insertStatement(t.tenant, row)).toBe(true)
    const msg = { tenantId: t.tenant.id, statementId: row.id, attempt: 1 }

    // Act: three copies at once, then three more once the row is delivered
    await Promise.all([0, 1, 2].map(() => attemptStatement(t.tenant, msg)))
    const [delivered] = await logOf(t, (rows) => rows[0]?.status === 'delivered')
    await Promise.all([0, 1, 2].map(() => attemptStatement(t.tenant, msg)))

    // Assess
    expect(delivered).toMatchObject({ id: row.id, status: 'delivered', httpStatus: 204 })
    expectOneRequestPerAttempt(lrs, delivered)
    expect(lrs.statements().length).toBeLessThanOrEqual(delivered?.attempts ?? 0)
    expect(lrs.statements()[0]?.req.raw.toString('utf8')).toBe(row.body)
    expect((await listLog(t.tenant))[0]).toMatchObject({ status: 'delivered', attempts: delivered?.attempts })
  })
})
