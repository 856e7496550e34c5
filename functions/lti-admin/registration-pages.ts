/**
 * The pages a Dynamic Registration link answers (decision 0051), shown in the platform's popup or
 * frame: framed like the launch pages (any https page, http ones on the local stack). The success
 * page's one script (allowed by its nonce) tells the platform the tool is done (Dynamic
 * Registration 3.7): `org.imsglobal.lti.close` to the opener, else to the parent frame.
 */
import { randomBytes } from 'node:crypto'
import type { HttpResult } from '../../shared/http/context.ts'
import type { RefusalCode } from '../../shared/services/lti/lti-dynamic-registration-service.ts'
import { esc, html } from '../lti/pages.ts'

export function registeredPage(platform: string, deployed: boolean, frameAncestors: string): HttpResult {
  const nonce = randomBytes(16).toString('base64')
  const body =
    `<h1 id="registered">Registered</h1><p>This tool is registered with ${esc(platform)}.</p>` +
    (deployed
      ? ''
      : '<p>The platform made no deployment yet: add its deployment id to the registration.</p>') +
    '<p>You can close this window.</p>' +
    `<script nonce="${nonce}">(window.opener || window.parent).postMessage({ subject: 'org.imsglobal.lti.close' }, '*')</script>`
  const page = html(200, 'Registered', body, frameAncestors)
  const csp = `${page.headers?.['content-security-policy'] ?? ''}; script-src 'nonce-${nonce}'`
  return { ...page, headers: { ...page.headers, 'content-security-policy': csp } }
}

const refusals: Record<RefusalCode, { readonly status: number; readonly text: string }> = {
  missing_openid_configuration: {
    status: 400,
    text: 'Open this link from your platform’s tool registration page: it adds the platform’s configuration.',
  },
  link_unusable: {
    status: 410,
    text: 'This registration link was used already, has expired, or is in use. Ask for a new link.',
  },
  configuration_refused: {
    status: 422,
    text: 'The platform’s configuration could not be read or cannot be used. The link can be tried again.',
  },
  platform_refused: {
    status: 422,
    text: 'The platform did not accept the registration. The link can be tried again.',
  },
  already_registered: {
    status: 409,
    text: 'This platform and client are registered already. The link can be used for another platform.',
  },
}

/** The statuses a refusal answers (the API document declares them). */
export const refusalStatuses = [...new Set(Object.values(refusals).map((r) => r.status))]

export function refusedPage(code: RefusalCode, frameAncestors: string): HttpResult {
  const { status, text } = refusals[code]
  return html(
    status,
    'Registration refused',
    `<h1>Registration refused</h1><p id="refusal" data-code="${esc(code)}">${esc(text)}</p>`,
    frameAncestors,
  )
}
