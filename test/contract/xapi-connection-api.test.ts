/**
 * The record-store connection over the API (api-additions section 4): admin scope, the
 * specification's rules (https public endpoint, both credentials on first save, a blank secret
 * keeps the saved one), the read-only test, and disconnect stopping export. Never the secret.
 */
import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { recordActivity } from '../../shared/services/enrollments/learner-service.ts'
import { listLog } from '../../shared/services/deliveries/xapi-service.ts'
import { listAudit } from '../../shared/store/tenants/audit-store.ts'
import { call } from '../helpers/http.ts'
import { untilAllRelayed } from '../helpers/outbox.ts'
import { startRecordStore } from '../helpers/record-store.ts'
import { newTenant, userBody, type TestTenant } from '../helpers/tenants.ts'
import { until } from '../helpers/until.ts'

const CONNECTION = '/api/v1/xapi/connection'
const SECRET = 'lrs-secret-Hq4w'

const put = (t: TestTenant, body: unknown, key = t.adminKey) =>
  call('PUT', CONNECTION, { host: `${t.slug}.localhost`, key, body })

const basic = (key: string, secret: string) => `Basic ${Buffer.from(`${key}:${secret}`).toString('base64')}`

describe('Route: PUT /api/v1/xapi/connection', () => {
  it('connects, answers and shows the connection without its secret, and audits it without the secret', async () => {
    // Prepare
    const t = await newTenant()
    const lrs = await startRecordStore()

    // Act
    const saved = await put(t, { endpoint: `${lrs.endpoint}/`, key: 'lrs-key', secret: SECRET })
    const got = await t.api.get(CONNECTION)

    // Assess
    expect(saved.status).toBe(200)
    expect(saved.body.data).toMatchObject({
      endpoint: lrs.endpoint,
      key: 'lrs-key',
      identity_mode: 'anonymous',
    })
    expect(got.body.data).toEqual(saved.body.data)
    for (const answer of [saved, got]) expect(JSON.stringify(answer.body)).not.toMatch(/secret/i)
    const audit = await listAudit(t.tenant)
    expect(audit.map((a) => a.action)).toContain('lrs.connect')
    expect(JSON.stringify(audit)).not.toContain(SECRET)
  })

  it('needs both credentials on the first save, an https public endpoint, known fields; refused saves change nothing', async () => {
    // Prepare
    const t = await newTenant()
    const lrs = await startRecordStore()

    // Act
    const answers = [
      await put(t, { endpoint: lrs.endpoint, key: 'k' }),
      await put(t, { endpoint: lrs.endpoint, key: '', secret: 's' }),
      await put(t, { endpoint: 'http://lrs.example.com/xapi', key: 'k', secret: 's' }),
      await put(t, { endpoint: 'https://10.0.0.1/xapi', key: 'k', secret: 's' }),
      await put(t, { endpoint: lrs.endpoint, key: 'k', secret: 's', identity_mode: 'real_name' }),
      await put(t, { endpoint: lrs.endpoint, key: 'k', secret: 's', password: 's' }),
      await put(t, { key: 'k', secret: 's' }),
    ]
    const got = await t.api.get(CONNECTION)

    // Assess
    expect(answers.map((a) => a.status)).toEqual([400, 400, 400, 400, 400, 400, 400])
    expect(answers.map((a) => String(a.body.error.message).split(/[ :]/)[0])).toEqual([
      'secret',
      'key',
      'endpoint',
      'endpoint',
      'identity_mode',
      'password',
      'endpoint',
    ])
    expect(got.status).toBe(404)
    expect(lrs.requests).toHaveLength(0)
  })

  it('keeps the saved secret when a later save leaves it blank, and tests with it ({ok, status})', async () => {
    // Prepare
    const t = await newTenant()
    const lrs = await startRecordStore(() => ({ status: 200, body: '{"statements":[]}' }))
    await put(t, { endpoint: lrs.endpoint, key: 'lrs-key', secret: SECRET })

    // Act
    const updated = await put(t, { endpoint: lrs.endpoint, key: 'key-2', secret: '', identity_mode: 'email' })
    const tested = await t.api.post(`${CONNECTION}/test`)

    // Assess
    expect(updated.status).toBe(200)
    expect(updated.body.data).toMatchObject({ key: 'key-2', identity_mode: 'email' })
    expect(tested.status).toBe(200)
    expect(tested.body.data).toEqual({ ok: true, status: 200 })
    expect(lrs.requests.map((r) => [r.method, r.url])).toEqual([['GET', '/xapi/statements?limit=1']])
    expect(lrs.requests[0]?.headers.authorization).toBe(basic('key-2', SECRET))
  })

  it('reports a failing record store as {ok: false, status}', async () => {
    // Prepare
    const t = await newTenant()
    const lrs = await startRecordStore(() => ({ status: 401 }))
    await put(t, { endpoint: lrs.endpoint, key: 'lrs-key', secret: SECRET })

    // Act
    const tested = await t.api.post(`${CONNECTION}/test`)

    // Assess
    expect(tested.body.data).toEqual({ ok: false, status: 401 })
  })
})

describe('Routes: the record store connection, scopes and absence', () => {
  it('refuses a key without the admin scope (403) and answers 404 when nothing is connected', async () => {
    // Prepare
    const t = await newTenant()
    const lrs = await startRecordStore()
    const readWrite = await t.key(['read', 'write'])
    const asReadWrite = t.api.withKey(readWrite)

    // Act
    const scoped = [
      await asReadWrite.get(CONNECTION),
      await put(t, { endpoint: lrs.endpoint, key: 'k', secret: 's' }, readWrite),
      await asReadWrite.post(`${CONNECTION}/test`),
      await asReadWrite.delete(CONNECTION),
    ]
    const absent = [
      await t.api.get(CONNECTION),
      await t.api.post(`${CONNECTION}/test`),
      await t.api.delete(CONNECTION),
    ]

    // Assess
    expect(scoped.map((a) => a.status)).toEqual([403, 403, 403, 403])
    expect(absent.map((a) => a.status)).toEqual([404, 404, 404])
    expect(lrs.requests).toHaveLength(0)
  })
})

describe('Route: DELETE /api/v1/xapi/connection', () => {
  it('stops export: activity after the delete sends nothing, and the connection is gone', async () => {
    // Prepare: a learner enrolled in a published course of three videos, a connected store.
    const t = await newTenant()
    const lrs = await startRecordStore()
    const u = await t.api.post('/api/v1/users', userBody())
    const c = await t.api.post('/api/v1/courses', { title: `Course ${randomUUID().slice(0, 6)}` })
    const courseId = c.body.data.id as string
    const modules: string[] = []
    for (const title of ['M0', 'M1']) {
      const m = await t.api.post(`/api/v1/courses/${courseId}/modules`, { title, module_type: 'video' })
      modules.push(m.body.data.id as string)
    }
    expect((await t.api.patch(`/api/v1/courses/${courseId}`, { status: 'published' })).status).toBe(200)
    const e = await t.api.post('/api/v1/enrollments', { user_id: u.body.data.id, course_id: courseId })
    const enrollmentId = e.body.data.id as string
    await put(t, { endpoint: lrs.endpoint, key: 'lrs-key', secret: SECRET })

    // Act
    await recordActivity(t.tenant, enrollmentId, { moduleId: modules[0] ?? '', kind: 'complete' })
    await lrs.waitFor(1)
    const deleted = await t.api.delete(CONNECTION)
    await recordActivity(t.tenant, enrollmentId, { moduleId: modules[1] ?? '', kind: 'complete' })
    // Barrier: every event is relayed, so every statement they will ever make is in the log.
    await untilAllRelayed(t.tenant)
    const log = await until(
      () => listLog(t.tenant),
      (rows) => rows.every((r) => r.status !== 'pending'),
    )
    const got = await t.api.get(CONNECTION)

    // Assess
    expect(deleted.status).toBe(204)
    expect(got.status).toBe(404)
    expect(lrs.statements()).toHaveLength(1)
    expect(log.filter((r) => r.status === 'delivered')).toHaveLength(1)
    expect((await listAudit(t.tenant)).map((a) => a.action)).toContain('lrs.disconnect')
  })
})
