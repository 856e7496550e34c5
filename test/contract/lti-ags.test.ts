/**
 * LTI Assignment and Grade Services (decision 0050), against the platform written in the tests
 * (test/helpers/lti-platform.ts): a launch whose AGS claim names a line item links the enrollment
 * to it; each module completed posts the progress, the completion posts the final score, with a
 * token from the platform's token endpoint (which verifies our client assertion against our JWKS),
 * kept for later posts; a post the platform fails for now (5xx, 429) is tried again, one it refuses
 * (another 4xx) is dropped, and a 401 gets a new token and one more post.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { recordActivity } from '../../shared/services/enrollments/learner-service.ts'
import { fanOutScores, postQueuedScore } from '../../shared/services/lti/lti-ags-service.ts'
import { tenantById } from '../../shared/services/tenants/tenant-cache.ts'
import { eraseLearner } from '../../shared/services/users/erasure-service.ts'
import { queryAll } from '../../shared/store/core/db.ts'
import { getAgsLink, keepAgsLink } from '../../shared/store/lti/lti-ags-store.ts'
import {
  outboxQueryParams,
  toOutboxEntry,
  type PendingEvent,
} from '../../shared/store/outbox/outbox-store.ts'
import { beforeNextTransaction, wrapDynamoDbCalls } from '../helpers/dynamodb-calls.ts'
import { course } from '../helpers/learning.ts'
import {
  AGS_SCORE_SCOPE,
  launchClaims,
  LTI,
  postForm,
  readBody,
  startLogin,
  registerPlatform,
  startPlatform,
  type Platform,
  type PostedScore,
} from '../helpers/lti-platform.ts'
import { untilAllRelayed } from '../helpers/outbox.ts'
import { newTenant, type TestTenant } from '../helpers/tenants.ts'
import { until } from '../helpers/until.ts'

let t: TestTenant
let platform: Platform
let host: string
let courseId: string
let moduleIds: string[]
let registrationId: string

beforeEach(async () => {
  t = await newTenant('growth')
  platform = await startPlatform()
  host = `${t.slug}.localhost`
  platform.toolJwks = { url: `http://${host}/api/v1/lti/.well-known/jwks.json`, host }
  const c = await course(t, {
    modules: ['One', 'Two', 'Three'].map((title) => ({ title, module_type: 'video' })),
  })
  courseId = c.id
  moduleIds = c.modules.map((m) => m.id)
  registrationId = await registerPlatform(t.tenant, platform, {
    courseId,
    deepLinking: false,
    services: true,
  })
})

afterEach(() => platform.close())

const agsClaim = (lineItem: string) => ({
  [LTI.ags]: {
    scope: [AGS_SCORE_SCOPE, 'https://purl.imsglobal.org/spec/lti-ags/scope/lineitem.readonly'],
    lineitem: lineItem,
    lineitems: `${platform.base}/lineitems`,
  },
})

/** A launch into the deployment's course. @returns the platform user (`sub`) and their enrollment */
async function launch(extra: Record<string, unknown> = {}): Promise<{ sub: string; enrollmentId: string }> {
  const before = await enrollmentIds()
  const login = await startLogin(host, platform, `http://${host}/api/v1/lti/launch`)
  const claims = launchClaims(platform, login.nonce, extra)
  const reply = await postForm(
    host,
    '/api/v1/lti/launch',
    { id_token: await platform.sign(claims), state: login.state },
    login.cookie,
  )
  expect(String(reply.headers.location)).toBe(`http://${host}/learn/${courseId}`)
  const made = (await enrollmentIds()).filter((id) => !before.includes(id))
  expect(made).toHaveLength(1)
  return { sub: String(claims.sub), enrollmentId: made[0] ?? '' }
}

async function enrollmentIds(): Promise<string[]> {
  const r = await t.api.get(`/api/v1/courses/${courseId}/enrollments`)
  expect(r.status).toBe(200)
  return (r.body.data as { id: string }[]).map((e) => e.id)
}

const complete = (enrollmentId: string, i: number) =>
  recordActivity(t.tenant, enrollmentId, { moduleId: moduleIds[i] ?? '', kind: 'complete' })

const scoresOf = (sub: string, count: number): Promise<PostedScore[]> =>
  until(
    async () => platform.scores.filter((s) => s.body.userId === sub),
    (found) => found.length >= count,
  )

describe('AGS score passback', () => {
  it('posts the progress of each module, then the completion as fully graded, with one token for every post', async () => {
    // Prepare
    const lineItem = platform.lineItemUrl('grades-1')
    const { sub, enrollmentId } = await launch(agsClaim(lineItem))

    // Act + Assess: one score per module completed, in order
    await complete(enrollmentId, 0)
    await scoresOf(sub, 1)
    await complete(enrollmentId, 1)
    await scoresOf(sub, 2)
    await complete(enrollmentId, 2)
    const scores = await scoresOf(sub, 3)

    expect(scores.map((s) => s.lineItem)).toEqual([lineItem, lineItem, lineItem])
    expect(scores.map((s) => s.contentType)).toEqual(Array(3).fill('application/vnd.ims.lis.v1.score+json'))
    expect(scores.map((s) => s.body)).toEqual([
      expect.objectContaining({ scoreGiven: 33, activityProgress: 'InProgress', gradingProgress: 'Pending' }),
      expect.objectContaining({ scoreGiven: 67, activityProgress: 'InProgress', gradingProgress: 'Pending' }),
      expect.objectContaining({
        scoreGiven: 100,
        activityProgress: 'Completed',
        gradingProgress: 'FullyGraded',
      }),
    ])
    for (const s of scores) expect(s.body).toMatchObject({ userId: sub, scoreMaximum: 100 })
    const times = scores.map((s) => s.body.timestamp)
    expect([...times].sort()).toEqual(times)
    const completedAt = (await t.api.get(`/api/v1/enrollments/${enrollmentId}`)).body.data.completed_at
    expect(times[2]).toBe(completedAt)
    // The platform verified each token request's assertion against our JWKS; one token served all.
    expect(platform.tokenRequests).toEqual([{ scope: AGS_SCORE_SCOPE }])
  })

  it('tries a post the platform answered 500 again, and delivers it', async () => {
    // Prepare
    const { sub, enrollmentId } = await launch(agsClaim(platform.lineItemUrl('grades-2')))
    platform.failNextScores = 1

    // Act
    await complete(enrollmentId, 0)

    // Assess
    const [score] = await scoresOf(sub, 1)
    expect(platform.failNextScores).toBe(0)
    expect(score?.body).toMatchObject({ userId: sub, scoreGiven: 33, activityProgress: 'InProgress' })
  })

  it('posts nothing for a launch without the AGS claim (a later linked learner is scored)', async () => {
    // Prepare: a learner launched without the claim completes the course
    const unlinked = await launch()
    for (const i of [0, 1, 2]) await complete(unlinked.enrollmentId, i)
    await untilAllRelayed(t.tenant)

    // Act: a learner launched with it, after every event of the first was handed on
    const linked = await launch(agsClaim(platform.lineItemUrl('grades-3')))
    await complete(linked.enrollmentId, 0)

    // Assess
    await scoresOf(linked.sub, 1)
    expect(platform.scores.map((s) => s.body.userId)).toEqual([linked.sub])
  })
})

describe('AGS and erasure', () => {
  it('posts nothing for a learner once erased, and keeps no platform user id of theirs', async () => {
    // Prepare: a linked learner scored once
    const { sub, enrollmentId } = await launch(agsClaim(platform.lineItemUrl('grades-erased')))
    await complete(enrollmentId, 0)
    await scoresOf(sub, 1)
    const userId = (await t.api.get(`/api/v1/enrollments/${enrollmentId}`)).body.data.user_id

    // Act
    await eraseLearner(t.tenant, userId, 'test')
    await complete(enrollmentId, 1)

    // Assess: once the completion is relayed, every score it will ever queue is known
    const relayed = await untilAllRelayed(t.tenant)
    expect(relayed.filter((e) => e.event === 'module.completed')).toHaveLength(2)
    expect(await getAgsLink(t.tenant, enrollmentId)).toBeUndefined()
    expect(platform.scores.map((s) => s.body.scoreGiven)).toEqual([33])
  })
})

/** The stored `module.completed` events of the enrollment, as the relay reads them. */
async function moduleCompletions(enrollmentId: string): Promise<PendingEvent[]> {
  const entries = (await queryAll(outboxQueryParams(t.tenant))).map(toOutboxEntry)
  return entries.filter(
    (e): e is PendingEvent =>
      e.kind === 'event' &&
      e.event.event === 'module.completed' &&
      e.event.data.enrollmentId === enrollmentId,
  )
}

/** Runs `act`, counting the reads of AGS links this process makes meanwhile. */
async function linkReadsDuring(act: () => Promise<unknown>): Promise<number> {
  let reads = 0
  const unwrap = wrapDynamoDbCalls((next) => async (operation, input) => {
    if (operation === 'GetItem' && JSON.stringify(input.Key).includes('LTIAGS#')) reads += 1
    return next(operation, input)
  })
  try {
    await act()
  } finally {
    unwrap()
  }
  return reads
}

describe('AGS on the relay: no link read for an enrollment without one', () => {
  it('reads no link for the completion of an enrollment that has none (and reads one for an item that does not say)', async () => {
    // Prepare: a learner launched without the claim completes a module
    const { enrollmentId } = await launch()
    await complete(enrollmentId, 0)
    const [completion] = await moduleCompletions(enrollmentId)
    if (!completion) throw new Error('no module.completed stored')
    const tenant = await tenantById(t.tenant.id)
    if (!tenant) throw new Error('no tenant')

    // Act + Assess: the event says its enrollment has no link; the relay's fan-out reads none
    expect(completion.scoresLinked).toBe(false)
    expect(completion.event.data).not.toHaveProperty('scoresLinked')
    expect(await linkReadsDuring(() => fanOutScores(tenant, completion))).toBe(0)
    // An item written before the events said so is looked up as before
    expect(await linkReadsDuring(() => fanOutScores(tenant, { ...completion, scoresLinked: null }))).toBe(1)
  })

  it('scores a completion saved while a launch linked the enrollment (the older copy is not written over the mark)', async () => {
    // Prepare: a learner launched without the claim; their next launch links them just before
    // the completion's transaction is sent
    const { sub, enrollmentId } = await launch()
    const lineItem = platform.lineItemUrl('grades-race')
    const link = { enrollmentId, registrationId, sub, lineItem, linkedAt: new Date().toISOString() }
    const unwrap = beforeNextTransaction(() => keepAgsLink(t.tenant, link))

    // Act
    try {
      await complete(enrollmentId, 0)
    } finally {
      unwrap()
    }

    // Assess: the completion was saved again on the linked copy, and its score reaches the platform
    expect((await moduleCompletions(enrollmentId)).map((e) => e.scoresLinked)).toEqual([true])
    const [score] = await scoresOf(sub, 1)
    expect(score).toMatchObject({ lineItem, body: expect.objectContaining({ scoreGiven: 33 }) })
  })
})

/**
 * The platform answers score posts `status` itself (with `headers`), the first `count` of them;
 * later ones as usual. @returns how many it answered so
 */
function answerScores(status: number, count = Infinity, headers: Record<string, string> = {}) {
  const answered = { posts: 0 }
  platform.extra = async (req, res, url) => {
    if (req.method !== 'POST' || !/^\/lineitems\/[\w-]+\/scores$/.test(url.pathname)) return false
    if (answered.posts >= count) return false
    answered.posts += 1
    await readBody(req)
    res.writeHead(status, headers)
    res.end()
    return true
  }
  return answered
}

/**
 * The first attempt of a score, run here as the worker runs it. This test process has no scores
 * queue: an attempt that queued a retry would throw, so an answer returned means none was queued.
 */
const firstAttempt = (enrollmentId: string) =>
  postQueuedScore({
    tenantId: t.tenant.id,
    enrollmentId,
    at: new Date().toISOString(),
    completed: false,
    scoreGiven: 50,
    attempt: 1,
  })

describe('AGS answers the platform gives', () => {
  it('drops a score the platform refuses with 400, without trying it again', async () => {
    // Prepare
    const { enrollmentId } = await launch(agsClaim(platform.lineItemUrl('deleted')))
    const refusals = answerScores(400)

    // Act
    const outcome = await firstAttempt(enrollmentId)

    // Assess
    expect(outcome).toBe('refused')
    expect(refusals.posts).toBe(1)
    expect(platform.tokenRequests).toHaveLength(1)
  })

  it('asks for a new token after a 401 and posts once more with it', async () => {
    // Prepare
    const { sub, enrollmentId } = await launch(agsClaim(platform.lineItemUrl('grades-401')))
    const refusals = answerScores(401, 1)

    // Act
    const outcome = await firstAttempt(enrollmentId)

    // Assess
    expect(outcome).toBe('posted')
    expect(refusals.posts).toBe(1)
    expect(platform.tokenRequests).toHaveLength(2)
    expect(platform.scores.map((s) => s.body)).toEqual([
      expect.objectContaining({ userId: sub, scoreGiven: 50, activityProgress: 'InProgress' }),
    ])
  })

  it('drops the score when the new token is refused too', async () => {
    // Prepare
    const { enrollmentId } = await launch(agsClaim(platform.lineItemUrl('grades-401-twice')))
    const refusals = answerScores(401)

    // Act
    const outcome = await firstAttempt(enrollmentId)

    // Assess
    expect(outcome).toBe('refused')
    expect(refusals.posts).toBe(2)
    expect(platform.tokenRequests).toHaveLength(2)
    expect(platform.scores).toEqual([])
  })

  it('tries a post answered 503 with Retry-After again, and delivers it', async () => {
    // Prepare
    const { sub, enrollmentId } = await launch(agsClaim(platform.lineItemUrl('grades-503')))
    const unavailable = answerScores(503, 1, { 'retry-after': '1' })

    // Act: the stack's relay and worker
    await complete(enrollmentId, 0)

    // Assess
    const [score] = await scoresOf(sub, 1)
    expect(unavailable.posts).toBe(1)
    expect(score?.body).toMatchObject({ userId: sub, scoreGiven: 33, activityProgress: 'InProgress' })
  })
})
