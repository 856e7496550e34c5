/**
 * The whole LTI flow in headless Chromium (issue 33): the platform written in the tests launches a
 * learner with the AGS claim naming a line item; the learner completes the course on its page by
 * clicking each module's button; the platform's gradebook receives the progress while the course is
 * in progress, then the completion as fully graded (decision 0050), with a token from its token
 * endpoint, which verified our client assertion against our JWKS; the API shows the enrollment
 * completed.
 */
import { afterEach, beforeEach, expect, it } from 'vitest'
import { inject } from 'vitest'
import { launchChromium, type Browser, type Tab } from '../helpers/chromium.ts'
import { course } from '../helpers/learning.ts'
import {
  AGS_SCORE_SCOPE,
  LTI,
  registerPlatform,
  startPlatform,
  type Platform,
  type PostedScore,
} from '../helpers/lti-platform.ts'
import { newTenant, type TestTenant } from '../helpers/tenants.ts'
import { until } from '../helpers/until.ts'

let t: TestTenant
let platform: Platform
let browser: Browser
let origin: string

beforeEach(async () => {
  t = await newTenant('growth')
  platform = await startPlatform()
  browser = await launchChromium()
  // The gateway listens on 127.0.0.1; Chromium resolves every *.localhost name to loopback itself.
  origin = `http://${t.slug}.localhost:${new URL(inject('gatewayUrl')).port}`
  platform.toolJwks = { url: `${origin}/api/v1/lti/.well-known/jwks.json`, host: `${t.slug}.localhost` }
})

afterEach(async () => {
  await browser.close()
  await platform.close()
})

/** The platform's launch button: a third-party-initiated login of `loginHint` (the launch's `sub`). */
const start = (loginHint: string) =>
  `${platform.base}/start?${new URLSearchParams({
    login: `${origin}/api/v1/lti/login`,
    target: `${origin}/api/v1/lti/launch`,
    login_hint: loginHint,
  })}`

/** Waits, generously (the relay, the queue and the worker stand between), for the learner's `count`th score. */
async function scoresOf(sub: string, count: number): Promise<PostedScore['body'][]> {
  const bodies = await until(
    async () => platform.scores.filter((s) => s.body.userId === sub).map((s) => s.body),
    (found) => found.length >= count,
    120_000,
  )
  expect(bodies.length).toBeGreaterThanOrEqual(count)
  return bodies
}

const clickComplete = (tab: Tab, moduleId: string) =>
  tab.evaluate<void>(`document.querySelector('#complete-${moduleId}').click()`)

it('launches a learner with a line item, who completes the course on its page: progress, then the final score, reach the platform', async () => {
  // Prepare: a course of three required modules, its deployment on a registration with a token endpoint
  const c = await course(t, {
    modules: ['Welcome', 'Practice', 'Wrap-up'].map((title) => ({
      title,
      module_type: 'document',
      is_required: true,
    })),
  })
  const moduleIds = c.modules.map((m) => m.id)
  await registerPlatform(t.tenant, platform, {
    deploymentId: 'dep-flow',
    courseId: c.id,
    deepLinking: false,
    services: true,
  })
  const lineItem = platform.lineItemUrl('flow-grades')
  platform.nextClaims = {
    [LTI.messageType]: 'LtiResourceLinkRequest',
    [LTI.version]: '1.3.0',
    [LTI.deploymentId]: 'dep-flow',
    [LTI.roles]: ['http://purl.imsglobal.org/vocab/lis/v2/membership#Learner'],
    [LTI.ags]: { scope: [AGS_SCORE_SCOPE], lineitem: lineItem },
    given_name: 'Dorothy',
    family_name: 'Vaughan',
    email: `dorothy-${t.slug}@example.com`,
  }
  const sub = 'learner-flow'

  // Act: the launch lands on the course page
  const tab = await browser.open(start(sub))
  expect((await tab.waitFor('#course-title')).url).toBe(`${origin}/learn/${c.id}`)

  // Act + Assess: each click completes a module; each progress reaches the gradebook in progress
  await clickComplete(tab, moduleIds[0] ?? '')
  await tab.waitFor('#progress[value="33"]')
  expect((await scoresOf(sub, 1))[0]).toMatchObject({
    scoreGiven: 33,
    activityProgress: 'InProgress',
    gradingProgress: 'Pending',
  })
  await clickComplete(tab, moduleIds[1] ?? '')
  await tab.waitFor('#progress[value="67"]')
  expect((await scoresOf(sub, 2))[1]).toMatchObject({
    scoreGiven: 67,
    activityProgress: 'InProgress',
    gradingProgress: 'Pending',
  })
  await clickComplete(tab, moduleIds[2] ?? '')
  expect((await tab.waitFor('#enrollment-status')).text).toBe('You have completed this course.')
  const scores = await scoresOf(sub, 3)

  // Assess: the final score, fully graded, at the completion's time; nothing else was posted
  expect(scores).toHaveLength(3)
  expect(scores[2]).toMatchObject({
    userId: sub,
    scoreGiven: 100,
    scoreMaximum: 100,
    activityProgress: 'Completed',
    gradingProgress: 'FullyGraded',
  })
  expect(platform.scores.map((s) => s.lineItem)).toEqual([lineItem, lineItem, lineItem])
  expect(platform.tokenRequests).toEqual([{ scope: AGS_SCORE_SCOPE }])
  const [listed] = (await t.api.get(`/api/v1/courses/${c.id}/enrollments`)).body.data as { id: string }[]
  const enrollment = (await t.api.get(`/api/v1/enrollments/${listed?.id}`)).body.data
  expect(enrollment).toMatchObject({ status: 'completed', progress_percent: 100 })
  expect(scores[2]?.timestamp).toBe(enrollment.completed_at)
})
