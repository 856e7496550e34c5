/**
 * Erasing a learner with the operator CLI: identity replaced, address and seat freed, history
 * kept, the learner's record-store delivery log deleted (and nobody else's), the account frozen.
 */
import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { recordActivity } from '../../shared/services/enrollments/learner-service.ts'
import { connect } from '../../shared/services/deliveries/lrs-connection-service.ts'
import { createEndpoint } from '../../shared/services/deliveries/webhooks-service.ts'
import { attemptStatement, listLog } from '../../shared/services/deliveries/xapi-service.ts'
import { getConnection, getStatement, insertStatement } from '../../shared/store/deliveries/xapi-store.ts'
import { listAudit } from '../../shared/store/tenants/audit-store.ts'
import { lms } from '../helpers/cli.ts'
import { untilAllRelayed } from '../helpers/outbox.ts'
import { startReceiver } from '../helpers/receiver.ts'
import { startRecordStore, type RecordStore } from '../helpers/record-store.ts'
import { newTenant, userBody, type TestTenant } from '../helpers/tenants.ts'
import { until } from '../helpers/until.ts'

interface Learner {
  id: string
  email: string
  enrollmentId: string
}

/** Two enrolled learners on a published course of two modules, and a connected record store. */
async function setup(): Promise<{
  t: TestTenant
  modules: string[]
  store: RecordStore
  a: Learner
  b: Learner
}> {
  const t = await newTenant()
  const c = await t.api.post('/api/v1/courses', { title: `Course ${randomUUID().slice(0, 6)}` })
  expect(c.status).toBe(201)
  const courseId = c.body.data.id as string
  const modules: string[] = []
  for (const title of ['M0', 'M1']) {
    const m = await t.api.post(`/api/v1/courses/${courseId}/modules`, { title, module_type: 'video' })
    expect(m.status).toBe(201)
    modules.push(m.body.data.id as string)
  }
  expect((await t.api.patch(`/api/v1/courses/${courseId}`, { status: 'published' })).status).toBe(200)
  const learner = async (): Promise<Learner> => {
    const u = await t.api.post('/api/v1/users', { ...userBody(), external_id: `hr-${randomUUID()}` })
    expect(u.status).toBe(201)
    const e = await t.api.post('/api/v1/enrollments', { user_id: u.body.data.id, course_id: courseId })
    expect(e.status).toBe(201)
    return { id: u.body.data.id, email: u.body.data.email, enrollmentId: e.body.data.id }
  }
  const store = await startRecordStore()
  await connect(t.tenant, { endpoint: store.endpoint, key: 'k', secret: 's' }, 'test')
  return { t, modules, store, a: await learner(), b: await learner() }
}

describe('CLI: lms user erase', () => {
  it('replaces the identity, frees the address and the seat, keeps the history, deletes only their log', async () => {
    // Prepare
    const { t, modules, store, a, b } = await setup()
    for (const learner of [a, b]) {
      await recordActivity(t.tenant, learner.enrollmentId, { moduleId: modules[0] ?? '', kind: 'complete' })
    }
    const logged = await until(
      () => listLog(t.tenant),
      (rows) => rows.length === 2,
    )
    expect(logged).toHaveLength(2)
    const activeBefore = await t.api.get('/api/v1/users?is_active=true')

    await store.waitFor(2)
    const sentBefore = store.requests.length

    // Act
    const erased = await lms('user', 'erase', '--tenant', t.slug, '--id', a.id)

    // Assess
    expect(erased.code).toBe(0)
    expect(erased.json).toMatchObject({ id: a.id, statements_deleted: 1 })
    expect(Date.parse(erased.json.erased_at)).not.toBeNaN()
    const log = await listLog(t.tenant)
    expect(log.map((row) => row.userId)).toEqual([b.id])

    const user = await t.api.get(`/api/v1/users/${a.id}`)
    expect(user.status).toBe(200)
    expect(user.body.data).toMatchObject({
      id: a.id,
      email: `erased-${a.id}@erased.invalid`,
      first_name: 'Erased',
      last_name: 'Learner',
      is_active: false,
      external_id: null,
    })
    expect(JSON.stringify(user.body)).not.toContain(a.email)

    const activeAfter = await t.api.get('/api/v1/users?is_active=true')
    expect(activeAfter.body.meta.total).toBe(activeBefore.body.meta.total - 1)
    const enrollment = await t.api.get(`/api/v1/enrollments/${a.enrollmentId}`)
    expect(enrollment.status).toBe(200)

    const reused = await t.api.post('/api/v1/users', { ...userBody(), email: a.email })
    expect(reused.status).toBe(201)
    const listed = await t.api.get('/api/v1/users?per_page=100&sort_by=email')
    const byEmail = new Map(listed.body.data.map((u: { id: string; email: string }) => [u.email, u.id]))
    expect(byEmail.get(a.email)).toBe(reused.body.data.id)
    expect(byEmail.get(`erased-${a.id}@erased.invalid`)).toBe(a.id)

    // Activity relayed after the erasure makes no statement for the erased learner.
    for (const learner of [a, b]) {
      await recordActivity(t.tenant, learner.enrollmentId, { moduleId: modules[1] ?? '', kind: 'complete' })
    }
    // Barrier: every event is relayed, so every statement it will ever make is in the log.
    await untilAllRelayed(t.tenant)
    const after = await until(
      () => listLog(t.tenant),
      (rows) => rows.every((row) => row.status === 'delivered'),
    )
    // b: module 0 (before), module 1 and the course (both modules done); a: nothing after module 0
    expect(after.map((row) => row.userId)).toEqual([b.id, b.id, b.id])
    const sentAfter = store.requests.slice(sentBefore)
    expect(sentAfter).toHaveLength(2)
    expect(sentAfter.some((r) => r.raw.toString('utf8').includes(a.id))).toBe(false)

    const audit = await listAudit(t.tenant)
    expect(audit.find((r) => r.action === 'user.erased')).toMatchObject({
      actor: 'operator-cli',
      details: { userId: a.id, statementsDeleted: 1 },
    })
    expect(JSON.stringify(audit)).not.toContain(a.email)
  })

  it('drops, unsent, a statement row that was written for the learner while the erasure ran', async () => {
    // Prepare: erased, then a row that a fan-out racing the erasure wrote after its delete
    const { t, store, a } = await setup()
    await lms('user', 'erase', '--tenant', t.slug, '--id', a.id)
    const connection = await getConnection(t.tenant)
    const id = randomUUID()
    const at = new Date().toISOString()
    await insertStatement(t.tenant, {
      id,
      eventId: randomUUID(),
      connectionId: connection?.id ?? '',
      madeFor: { endpoint: connection?.endpoint ?? '', identityMode: 'anonymous' },
      verb: 'completed',
      objectId: 'https://x.example/m',
      userId: a.id,
      enrollmentId: a.enrollmentId,
      status: 'pending',
      attempts: 0,
      httpStatus: null,
      reason: null,
      body: JSON.stringify({ id, actor: { mbox: `mailto:${a.email}` } }),
      manualRetries: 0,
      createdAt: at,
      updatedAt: at,
      attemptRecorded: true,
    })

    // Act
    await attemptStatement(t.tenant, { tenantId: t.tenant.id, statementId: id, attempt: 1 })

    // Assess
    expect(await getStatement(t.tenant, id)).toBeUndefined()
    expect(store.requests).toHaveLength(0)
  })

  it('freezes the erased account: PATCH is 422, reactivation included', async () => {
    // Prepare
    const t = await newTenant()
    const u = await t.api.post('/api/v1/users', userBody())
    expect((await lms('user', 'erase', '--tenant', t.slug, '--id', u.body.data.id)).code).toBe(0)

    // Act
    const rename = await t.api.patch(`/api/v1/users/${u.body.data.id}`, { first_name: 'Back' })
    const reactivate = await t.api.patch(`/api/v1/users/${u.body.data.id}`, { is_active: true })

    // Assess
    for (const reply of [rename, reactivate]) {
      expect(reply.status).toBe(422)
      expect(reply.body.error.message).toMatch(/erased/)
    }
    const user = await t.api.get(`/api/v1/users/${u.body.data.id}`)
    expect(user.body.data).toMatchObject({ first_name: 'Erased', is_active: false })
  })

  it('raises user.deactivated for an active account, carrying the placeholder, never the old address', async () => {
    // Prepare
    const t = await newTenant()
    const receiver = await startReceiver()
    try {
      await createEndpoint(t.tenant, `${receiver.url}/hook`, ['user.deactivated'])
      const u = await t.api.post('/api/v1/users', userBody())

      // Act
      await lms('user', 'erase', '--tenant', t.slug, '--id', u.body.data.id)
      const [hook] = await receiver.waitFor(1)

      // Assess
      const sent = JSON.parse(hook?.raw.toString('utf8') ?? '{}') as { event: string; data: object }
      expect(sent.event).toBe('user.deactivated')
      expect(sent.data).toEqual({ userId: u.body.data.id, email: `erased-${u.body.data.id}@erased.invalid` })
      expect(hook?.raw.toString('utf8')).not.toContain(u.body.data.email)
    } finally {
      await receiver.close()
    }
  })

  it('is idempotent, keeping the first erasure date', async () => {
    // Prepare
    const t = await newTenant()
    const u = await t.api.post('/api/v1/users', userBody())
    const first = await lms('user', 'erase', '--tenant', t.slug, '--id', u.body.data.id)

    // Act
    const again = await lms('user', 'erase', '--tenant', t.slug, '--id', u.body.data.id)

    // Assess
    expect(again.code).toBe(0)
    expect(again.json).toEqual({ id: u.body.data.id, erased_at: first.json.erased_at, statements_deleted: 0 })
  })

  it("answers 404 for an unknown user and for another tenant's user, changing nothing", async () => {
    // Prepare
    const t = await newTenant()
    const other = await newTenant()
    const theirs = await other.api.post('/api/v1/users', userBody())

    // Act
    const unknown = await lms('user', 'erase', '--tenant', t.slug, '--id', randomUUID())
    const crossTenant = await lms('user', 'erase', '--tenant', t.slug, '--id', theirs.body.data.id)

    // Assess
    for (const out of [unknown, crossTenant]) {
      expect(out.code).not.toBe(0)
      expect(out.json.error.code).toBe(404)
    }
    const still = await other.api.get(`/api/v1/users/${theirs.body.data.id}`)
    expect(still.body.data.email).toBe(theirs.body.data.email)
  })
})
