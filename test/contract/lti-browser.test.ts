/**
 * The LTI flow in headless Chromium (Debian's `chromium`): the platform's auto-submitting forms,
 * the tool's redirects, its SameSite=None Secure cookies on the local stack's http://*.localhost
 * (a secure context to the browser), the landing page, and deep linking back to the platform.
 */
import { afterEach, beforeEach, expect, it } from 'vitest'
import { inject } from 'vitest'
import { launchChromium, type Browser, type Tab } from '../helpers/chromium.ts'
import { course, user } from '../helpers/learning.ts'
import { LTI, registerPlatform, startPlatform, type Platform } from '../helpers/lti-platform.ts'
import { newTenant, type TestTenant } from '../helpers/tenants.ts'

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
})

afterEach(async () => {
  await browser.close()
  await platform.close()
})

const start = (target: string, loginHint: string) =>
  `${platform.base}/start?${new URLSearchParams({ login: `${origin}/api/v1/lti/login`, target, login_hint: loginHint })}`

it('launches a learner from the platform into the course page, and a teacher picks courses by deep linking', async () => {
  const c = await course(t, { modules: [{ title: 'First steps', module_type: 'document' }] })
  const picked = await course(t, { modules: [{ title: 'Picked later', module_type: 'video' }] })
  await registerPlatform(t.tenant, platform, { deploymentId: 'dep-browser', courseId: c.id })

  platform.nextClaims = {
    [LTI.messageType]: 'LtiResourceLinkRequest',
    [LTI.version]: '1.3.0',
    [LTI.deploymentId]: 'dep-browser',
    [LTI.roles]: ['http://purl.imsglobal.org/vocab/lis/v2/membership#Learner'],
    given_name: 'Katherine',
    family_name: 'Johnson',
    email: `katherine-${t.slug}@example.com`,
  }
  const learner = await browser.open(start(`${origin}/api/v1/lti/launch`, 'learner-1'))
  const landed = await learner.waitFor('#course-title')
  expect(landed.url).toBe(`${origin}/learn/${c.id}`)
  expect(landed.text).toBe(c.title)
  expect(await learner.evaluate<string>('document.querySelector("#modules").textContent')).toContain(
    'First steps',
  )
  // The session cookie is HttpOnly: the page's script cannot read it.
  expect(await learner.evaluate<string>('document.cookie')).not.toContain('lms_session')
  // ...but the browser sends it: the catalog opens in the same session.
  await learner.evaluate<void>(`location.href = ${JSON.stringify(`${origin}/catalog`)}`)
  expect((await learner.waitFor('#catalog')).text).toContain(c.title)
  // A course picked from the catalog asks before enrolling; the button's post enrols and shows it.
  await learner.evaluate<void>(`document.querySelector('#catalog a[href="/learn/${picked.id}"]').click()`)
  await learner.waitFor('#enrol-button')
  await learner.evaluate<void>(`document.querySelector('#enrol-button').click()`)
  const enrolled = await learner.waitFor('#modules')
  expect(enrolled.url).toBe(`${origin}/learn/${picked.id}`)
  expect(enrolled.text).toContain('Picked later')

  platform.toolJwks = { url: `${origin}/api/v1/lti/.well-known/jwks.json`, host: `${t.slug}.localhost` }
  platform.nextClaims = {
    ...platform.nextClaims,
    [LTI.messageType]: 'LtiDeepLinkingRequest',
    [LTI.roles]: ['http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor'],
    [LTI.deepLinkingSettings]: { deep_link_return_url: platform.returnUrl, data: 'browser-data' },
    email: `teacher-${t.slug}@example.com`,
  }
  const teacher = await browser.open(start(`${origin}/api/v1/lti/deep-link`, 'teacher-1'))
  await teacher.waitFor('#returned')
  expect(platform.returns).toHaveLength(1)
  const items = platform.returns[0]?.payload[LTI.contentItems] as { custom: { course_id: string } }[]
  expect(items.map((i) => i.custom.course_id).sort()).toEqual([c.id, picked.id].sort())
  expect(platform.returns[0]?.payload[LTI.data]).toBe('browser-data')
})

/** A learner launched into the deployment's course, with their platform e-mail. */
async function launchedInto(courseId: string, email: string, deploymentId: string) {
  await registerPlatform(t.tenant, platform, { deploymentId, courseId, deepLinking: false })
  platform.nextClaims = {
    [LTI.messageType]: 'LtiResourceLinkRequest',
    [LTI.version]: '1.3.0',
    [LTI.deploymentId]: deploymentId,
    [LTI.roles]: ['http://purl.imsglobal.org/vocab/lis/v2/membership#Learner'],
    given_name: 'Mary',
    family_name: 'Jackson',
    email,
  }
  const tab = await browser.open(start(`${origin}/api/v1/lti/launch`, 'learner-page'))
  expect((await tab.waitFor('#course-title')).url).toBe(`${origin}/learn/${courseId}`)
  return tab
}

const progressOf = (tab: Tab) =>
  tab.evaluate<{ value: number; label: string; labelled: string }>(
    `(() => { const p = document.querySelector('#progress'); return { value: p.value, label: p.labels[0].textContent, labelled: p.labels[0].htmlFor } })()`,
  )

it('completes the course on its page: each module by its button (one by keyboard), progress moving, then the enrollment', async () => {
  const c = await course(t, {
    modules: [
      { title: 'Read the guide', module_type: 'document', is_required: true },
      { title: 'Watch the demo', module_type: 'video', is_required: true },
      { title: 'Further reading', module_type: 'document', is_required: false },
    ],
  })
  const [guide, demo, further] = c.modules.map((m) => m.id)
  const tab = await launchedInto(c.id, `mary-${t.slug}@example.com`, 'dep-page')
  expect(await tab.evaluate<string>('document.documentElement.lang')).toBe('en')
  expect(await progressOf(tab)).toEqual({ value: 0, label: 'Progress: 0%', labelled: 'progress' })
  expect((await tab.waitFor('#modules-heading')).text).toBe('Modules')
  expect((await tab.waitFor(`#module-status-${guide}`)).text).toBe('Required · Not started')
  expect((await tab.waitFor(`#module-status-${further}`)).text).toBe('Optional · Not started')

  // A click on the first module's button: the page comes back (303) with the module completed.
  await tab.evaluate<void>(`document.querySelector('#complete-${guide}').click()`)
  await tab.waitFor('#progress[value="50"]')
  expect(await progressOf(tab)).toMatchObject({ value: 50, label: 'Progress: 50%' })
  expect((await tab.waitFor(`#module-status-${guide}`)).text).toBe('Required · Completed')
  expect(await tab.evaluate<boolean>(`document.querySelector('#complete-${guide}') === null`)).toBe(true)

  // The optional module counts for nothing, but is done the same way.
  await tab.evaluate<void>(`document.querySelector('#complete-${further}').click()`)
  await tab.waitFor(`#module-${further}:not(:has(button))`)
  expect(await progressOf(tab)).toMatchObject({ value: 50 })

  // The last required module by keyboard: its button takes the focus, Enter presses it.
  const focused = await tab.evaluate<string>(
    `(() => { const b = document.querySelector('#complete-${demo}'); b.focus(); return document.activeElement.id })()`,
  )
  expect(focused).toBe(`complete-${demo}`)
  await tab.pressEnter()
  const done = await tab.waitFor('#enrollment-status')
  expect(done.text).toBe('You have completed this course.')
  expect(await progressOf(tab)).toMatchObject({ value: 100, label: 'Progress: 100%' })
  expect(await tab.evaluate<number>('document.querySelectorAll("#modules button").length')).toBe(0)

  const [listed] = (await t.api.get(`/api/v1/courses/${c.id}/enrollments`)).body.data as { id: string }[]
  const enrollment = await t.api.get(`/api/v1/enrollments/${listed?.id}`)
  expect(enrollment.body.data).toMatchObject({ status: 'completed', progress_percent: 100 })
  expect(enrollment.body.data.completed_at).not.toBeNull()
})

it('shows the page in French to a learner whose language is fr-CA', async () => {
  const c = await course(t, { modules: [{ title: 'Premiers pas', module_type: 'document' }] })
  const [first] = c.modules.map((m) => m.id)
  const email = `marie-${t.slug}@example.com`
  await user(t, { email, locale: 'fr-CA' })
  const tab = await launchedInto(c.id, email, 'dep-fr')
  expect(await tab.evaluate<string>('document.documentElement.lang')).toBe('fr-CA')
  expect(await progressOf(tab)).toMatchObject({ value: 0, label: 'Progression : 0 %' })
  expect((await tab.waitFor(`#module-status-${first}`)).text).toBe('Obligatoire · Non commencé')
  expect((await tab.waitFor(`#complete-${first}`)).text).toBe('Marquer comme terminé')
  expect((await tab.waitFor('nav a')).text).toBe('Tous les cours')

  await tab.evaluate<void>(`document.querySelector('#complete-${first}').click()`)
  expect((await tab.waitFor('#enrollment-status')).text).toBe('Vous avez terminé ce cours.')
  expect(await progressOf(tab)).toMatchObject({ value: 100, label: 'Progression : 100 %' })
})
