/**
 * cmi5 modules and package pass/fail in the record-store export: the launched statement, a unit's
 * own statements forwarded as sent with our actor, "satisfied" when the move-on criteria are met,
 * and the pass/fail a package reported on a completed module.
 */
import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { forwardUnitStatement, recordActivity } from '../../shared/services/enrollments/learner-service.ts'
import { connect } from '../../shared/services/deliveries/lrs-connection-service.ts'
import { listLog } from '../../shared/services/deliveries/xapi-service.ts'
import { lms } from '../helpers/cli.ts'
import { untilAllRelayed } from '../helpers/outbox.ts'
import { startRecordStore, type RecordStore } from '../helpers/record-store.ts'
import { newTenant, userBody, type TestTenant } from '../helpers/tenants.ts'
import { until } from '../helpers/until.ts'

interface Setup {
  t: TestTenant
  userId: string
  cmi5: string
  scorm: string
  enrollmentId: string
  store: RecordStore
}

/** A published course of one cmi5 and one SCORM module (added as the app does), an enrollment, a store. */
async function setup(): Promise<Setup> {
  const t = await newTenant()
  const u = await t.api.post('/api/v1/users', userBody())
  const c = await t.api.post('/api/v1/courses', { title: `Course ${randomUUID().slice(0, 6)}` })
  const courseId = c.body.data.id as string
  const added = []
  for (const type of ['cmi5', 'scorm']) {
    const out = await lms(
      'course',
      'add-module',
      '--tenant',
      t.slug,
      '--course',
      courseId,
      '--title',
      `${type} unit`,
      '--module-type',
      type,
    )
    expect(out.code).toBe(0)
    expect(out.json).toMatchObject({ module_type: type })
    added.push(out.json.id as string)
  }
  expect((await t.api.patch(`/api/v1/courses/${courseId}`, { status: 'published' })).status).toBe(200)
  const e = await t.api.post('/api/v1/enrollments', { user_id: u.body.data.id, course_id: courseId })
  expect(e.status).toBe(201)
  const store = await startRecordStore()
  await connect(t.tenant, { endpoint: store.endpoint, key: 'k', secret: 's' }, 'test')
  return {
    t,
    userId: u.body.data.id,
    cmi5: added[0] ?? '',
    scorm: added[1] ?? '',
    enrollmentId: e.body.data.id,
    store,
  }
}

const portal = (t: TestTenant) => `https://${t.slug}.localhost`
const verbOf = (body: Record<string, unknown>) => (body.verb as { id: string }).id

describe('cmi5: statements to the record store', () => {
  it('sends launched on launch, forwards a unit statement as sent with our actor, and satisfied on move-on', async () => {
    // Prepare
    const s = await setup()
    const unitStatementId = randomUUID()
    const sent = {
      id: unitStatementId,
      actor: { objectType: 'Agent', name: 'Ada Learner', mbox: 'mailto:ada@example.com' },
      verb: { id: 'http://adlnet.gov/expapi/verbs/experienced', display: { 'en-US': 'experienced' } },
      object: { objectType: 'Activity', id: 'https://units.example.com/au/7' },
      result: { duration: 'PT42S' },
      context: {
        registration: s.enrollmentId,
        extensions: { 'https://w3id.org/xapi/cmi5/context/extensions/sessionid': 'session-1' },
      },
      timestamp: '2026-11-23T08:00:00.000Z',
    }

    // Act
    await recordActivity(s.t.tenant, s.enrollmentId, { moduleId: s.cmi5, kind: 'start' })
    await s.store.waitFor(1)
    const forwarded = await forwardUnitStatement(s.t.tenant, s.enrollmentId, s.cmi5, JSON.stringify(sent))
    await s.store.waitFor(2)
    await recordActivity(s.t.tenant, s.enrollmentId, { moduleId: s.cmi5, kind: 'complete' })
    await s.store.waitFor(3)

    // Assess
    const [launched, unit, satisfied] = s.store.statements().map((x) => x.body)
    const actor = { objectType: 'Agent', account: { homePage: portal(s.t), name: s.userId } }
    expect(launched).toMatchObject({
      actor,
      verb: { id: 'http://adlnet.gov/expapi/verbs/launched' },
      object: { id: `${portal(s.t)}/xapi/activities/module/${s.cmi5}` },
      context: {
        registration: s.enrollmentId,
        contextActivities: { category: [{ id: 'https://w3id.org/xapi/cmi5/context/categories/cmi5' }] },
      },
    })
    expect(forwarded.statementId).toBe(unitStatementId)
    expect(unit).toEqual({ ...sent, actor })
    expect(Object.keys(unit ?? {})).toEqual(Object.keys(sent))
    expect(s.store.statements()[1]?.req.url).toBe(`/xapi/statements?statementId=${unitStatementId}`)
    expect(JSON.stringify(unit)).not.toContain('Ada')
    expect(verbOf(satisfied ?? {})).toBe('https://w3id.org/xapi/adl/verbs/satisfied')
    expect(satisfied).toMatchObject({ object: { id: `${portal(s.t)}/xapi/activities/module/${s.cmi5}` } })
  })

  it('refuses a statement for a module that is not cmi5, and one the record store would refuse', async () => {
    // Prepare
    const s = await setup()

    // Act
    const notCmi5 = await lms(
      'learner',
      'cmi5-statement',
      '--tenant',
      s.t.slug,
      '--enrollment',
      s.enrollmentId,
      '--module',
      s.scorm,
      '--statement',
      JSON.stringify({
        verb: { id: 'http://adlnet.gov/expapi/verbs/experienced' },
        object: { id: 'https://x.example/a' },
      }),
    )
    const noVerb = await lms(
      'learner',
      'cmi5-statement',
      '--tenant',
      s.t.slug,
      '--enrollment',
      s.enrollmentId,
      '--module',
      s.cmi5,
      '--statement',
      JSON.stringify({ object: { id: 'https://x.example/a' } }),
    )

    // Assess
    expect(notCmi5.code).not.toBe(0)
    expect(notCmi5.json.error.code).toBe(422)
    expect(noVerb.code).not.toBe(0)
    expect(noVerb.json.error).toMatchObject({ code: 400, message: expect.stringMatching(/statement\.verb/) })
    // Barrier: a valid statement sent after the refused ones must arrive, and alone.
    const valid = randomUUID()
    const accepted = await lms(
      'learner',
      'cmi5-statement',
      '--tenant',
      s.t.slug,
      '--enrollment',
      s.enrollmentId,
      '--module',
      s.cmi5,
      '--statement',
      JSON.stringify({
        id: valid,
        verb: { id: 'http://adlnet.gov/expapi/verbs/experienced' },
        object: { id: 'https://x.example/a' },
      }),
    )
    expect(accepted.code).toBe(0)
    await untilAllRelayed(s.t.tenant)
    const log = await until(
      () => listLog(s.t.tenant),
      (rows) => rows.every((row) => row.status === 'delivered'),
    )
    expect(log.map((row) => row.id)).toEqual([valid])
    expect(s.store.statements().map((x) => x.statementId)).toEqual([valid])
    expect(s.store.requests).toHaveLength(1)
  })
})

describe('Package modules: pass/fail in the completed statement', () => {
  it('sends the pass/fail the package reported with the completion, and none when it reported none', async () => {
    // Prepare
    const s = await setup()

    // Act: the SCORM module fails with a score; the cmi5 one completes without a verdict
    const failed = await lms(
      'learner',
      'complete-module',
      '--tenant',
      s.t.slug,
      '--enrollment',
      s.enrollmentId,
      '--module',
      s.scorm,
      '--score',
      '40',
      '--passed',
      'false',
    )
    await s.store.waitFor(1)

    // Assess
    expect(failed.code).toBe(0)
    const [completed] = s.store.statements().map((x) => x.body)
    expect(completed).toMatchObject({
      verb: { id: 'http://adlnet.gov/expapi/verbs/completed' },
      result: { success: false, completion: true, score: { raw: 40, max: 100, scaled: 0.4 } },
    })
  })
})
