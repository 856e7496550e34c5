/**
 * LTI Dynamic Registration in headless Chromium (decision 0051): the platform's admin page opens the
 * tool's one-time link in a frame, with its configuration URL and registration token; the tool
 * registers and its page posts `org.imsglobal.lti.close` to the platform's page.
 */
import { afterEach, beforeEach, expect, inject, it } from 'vitest'
import { launchChromium, type Browser } from '../helpers/chromium.ts'
import { addToolUrl, serveDynamicRegistration } from '../helpers/lti-dynamic-registration.ts'
import { startPlatform, type Platform } from '../helpers/lti-platform.ts'
import { newTenant, type TestTenant } from '../helpers/tenants.ts'

let t: TestTenant
let platform: Platform
let browser: Browser

beforeEach(async () => {
  t = await newTenant('growth')
  platform = await startPlatform({ issuerAtBase: true })
  browser = await launchChromium()
})

afterEach(async () => {
  await browser.close()
  await platform.close()
})

it('registers from a frame of the platform page, which receives the close message', async () => {
  const endpoint = serveDynamicRegistration(platform)
  const link = (await t.api.post('/api/v1/lti/registration-links', {})).body.data.url as string
  // The gateway listens on 127.0.0.1; Chromium resolves every *.localhost name to loopback itself.
  const origin = `http://${t.slug}.localhost:${new URL(inject('gatewayUrl')).port}`
  const opened = `${origin}${new URL(link).pathname}?${new URLSearchParams({
    openid_configuration: endpoint.configurationUrl,
    registration_token: endpoint.registrationToken,
  })}`

  const page = await browser.open(addToolUrl(platform, opened))
  const closed = await page.waitFor('#closed')
  expect(JSON.parse(closed.text)).toEqual({ subject: 'org.imsglobal.lti.close' })
  expect(endpoint.received).toHaveLength(1)
  const listed = (await t.api.get('/api/v1/lti/registrations')).body.data
  expect(listed).toEqual([expect.objectContaining({ issuer: platform.base, client_id: platform.clientId })])
})
