/**
 * The server-rendered pages of LTI launches: plain HTML and a little inline CSS, no script except
 * the deep-linking form's one-line submit (allowed by its nonce). Every value is escaped.
 */
import { randomBytes } from 'node:crypto'
import type { Course } from '../../shared/domain/courses/course.ts'
import type { HttpResult } from '../../shared/http/context.ts'
import type { CoursePage } from '../../shared/services/lti/lti-learner-service.ts'

const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
}
export const esc = (s: string): string => s.replace(/[&<>"']/g, (c) => ENTITIES[c] ?? c)

const CSS =
  'body{font-family:system-ui,sans-serif;margin:0;padding:1.5rem;color:#1f2328;background:#fff}' +
  'h1{font-size:1.4rem;margin:0 0 1rem}ul{padding:0;list-style:none}li{padding:.6rem 0;border-bottom:1px solid #ddd}' +
  'a{color:#0550ae}.bar{background:#eee;height:.5rem;border-radius:.25rem}.bar span{display:block;height:100%;background:#1a7f37;border-radius:.25rem}' +
  '.muted{color:#59636e;font-size:.9rem}.error{font-family:monospace;font-size:1.1rem}'

/**
 * Framing: platforms embed the tool in an iframe, on hosts the tool cannot know beforehand (a
 * platform's issuer is often not the host that frames it), so any https page may frame these
 * pages (and http ones where the tool itself is served over http, locally). The one button that
 * changes anything (enrol in a published course) does only what the learner could do from the
 * catalog anyway, so a clickjacker gains nothing by pressing it.
 */
function headers(frameAncestors: string, extraCsp = ''): Record<string, string> {
  return {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
    'content-security-policy': `default-src 'none'; style-src 'unsafe-inline'; frame-ancestors ${frameAncestors}; base-uri 'none'${extraCsp}`,
  }
}

export function frameAncestorsFor(origin: string): string {
  return origin.startsWith('http://') ? "'self' https: http:" : "'self' https:"
}

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${esc(title)}</title><style>${CSS}</style></head><body>${body}</body></html>`
}

export function html(status: number, title: string, body: string, frameAncestors: string): HttpResult {
  return { statusCode: status, headers: headers(frameAncestors), body: page(title, body) }
}

/** The login page shows the error code and nothing more. */
export function loginPage(code: string | undefined, frameAncestors: string): HttpResult {
  const body = code
    ? `<h1>Sign-in failed</h1><p class="error" id="error-code">${esc(code)}</p>`
    : '<h1>Sign in</h1><p>Open this course from your learning platform.</p>'
  return html(code ? 401 : 200, 'Sign in', body, frameAncestors)
}

export function catalogPage(courses: readonly Course[], frameAncestors: string): HttpResult {
  const items = courses
    .map(
      (c) =>
        `<li><a href="/learn/${encodeURIComponent(c.id)}">${esc(c.title)}</a>${c.shortDescription ? `<div class="muted">${esc(c.shortDescription)}</div>` : ''}</li>`,
    )
    .join('')
  return html(
    200,
    'Courses',
    `<h1>Courses</h1><ul id="catalog">${items || '<li>No course is published yet.</li>'}</ul>`,
    frameAncestors,
  )
}

export function coursePage(view: Extract<CoursePage, { kind: 'page' }>, frameAncestors: string): HttpResult {
  const { course, progress } = view
  const modules = progress.modules
    .map(
      ({ module, progress: p }) =>
        `<li><strong>${esc(module.title)}</strong> <span class="muted">${esc(module.moduleType)} · ${esc(p.status.replace(/_/g, ' '))}</span></li>`,
    )
    .join('')
  const body =
    `<p><a href="/catalog">All courses</a></p><h1 id="course-title">${esc(course.title)}</h1>` +
    (course.description ? `<p>${esc(course.description)}</p>` : '') +
    `<p id="progress">Progress: ${progress.overallProgressPercent}%</p><div class="bar"><span style="width:${progress.overallProgressPercent}%"></span></div>` +
    `<ul id="modules">${modules || '<li>No module yet.</li>'}</ul>`
  return html(200, course.title, body, frameAncestors)
}

/** A learner not yet enrolled: the course and one button; the form's token ties it to this page. */
export function enrolPage(course: Course, token: string, frameAncestors: string): HttpResult {
  const body =
    `<p><a href="/catalog">All courses</a></p><h1 id="course-title">${esc(course.title)}</h1>` +
    (course.description ? `<p>${esc(course.description)}</p>` : '') +
    `<form id="enrol" method="post" action="/learn/${encodeURIComponent(course.id)}">` +
    `<input type="hidden" name="token" value="${esc(token)}"><button type="submit" id="enrol-button">Enrol</button></form>`
  return {
    statusCode: 200,
    headers: headers(frameAncestors, "; form-action 'self'"),
    body: page(course.title, body),
  }
}

/** The auto-submitting form that carries the signed deep-linking response back to the platform. */
export function autoSubmitForm(action: string, jwt: string, frameAncestors: string): HttpResult {
  const nonce = randomBytes(16).toString('base64')
  const body =
    `<form id="deep-link-response" method="post" action="${esc(action)}"><input type="hidden" name="JWT" value="${esc(jwt)}">` +
    `<noscript><button type="submit">Continue</button></noscript></form>` +
    `<script nonce="${nonce}">document.getElementById('deep-link-response').submit()</script>`
  const base = headers(frameAncestors, `; script-src 'nonce-${nonce}'; form-action ${new URL(action).origin}`)
  return { statusCode: 200, headers: base, body: page('Returning to your platform', body) }
}
