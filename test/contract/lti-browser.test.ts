/**
 * The LTI flow in headless Chromium (Debian's `chromium`): the platform's auto-submitting forms,
 * the tool's redirects, its SameSite=None Secure cookies on the local stack's http://*.localhost
 * (a secure context to the browser), the landing page, and deep linking back to the platform.
 */
import { afterEach, beforeEach, expect, it } from 'vitest'
import { inject } from 'vitest'
import { addDeployment, register } from '../../shared/services/lti/lti-registrations-service.ts'
import { launchChromium, type Browser } from '../helpers/chromium.ts'
import { course } from '../helpers/learning.ts'
import { LTI, startPlatform, type Platform } from '../helpers/lti-platform.ts'
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
  const registration = await register(t.tenant, {
    issuer: platform.issuer,
    clientId: platform.clientId,
    jwksUrl: platform.jwksUrl,
    authUrl: platform.authUrl,
    deepLinking: true,
  })
  await addDeployment(t.tenant, registration.id, 'dep-browser', c.id)

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
