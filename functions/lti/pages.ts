/**
 * The server-rendered pages of LTI launches: plain HTML and a little inline CSS, no script except
 * the deep-linking form's one-line submit (allowed by its nonce). Every value is escaped.
 */
import { randomBytes } from 'node:crypto'
import type { Course } from '../../shared/domain/courses/course.ts'
import type { HttpResult } from '../../shared/http/context.ts'
import type { Locale } from '../../shared/domain/users/user.ts'
import type { CoursePage } from '../../shared/services/lti/lti-learner-service.ts'
import { learnerCopy } from './learner-copy.ts'

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
  '.muted{color:#59636e;font-size:.9rem}.error{font-family:monospace;font-size:1.1rem}' +
  'h2{font-size:1.15rem;margin:1.5rem 0 .5rem}h3{font-size:1rem;margin:0 0 .25rem}progress{width:100%;height:.75rem}' +
  'button{font:inherit;padding:.35rem .9rem;margin-top:.4rem}button:focus-visible,a:focus-visible{outline:3px solid #0550ae;outline-offset:2px}'

/**
 * Framing: platforms embed the tool in an iframe, on hosts the tool cannot know beforehand (a
 * platform's issuer is often not the host that frames it), so any https page may frame these
 * pages (and http ones where the tool itself is served over http, locally). The buttons that
 * change anything (enrol in a published course, mark a module complete) do only what the learner
 * could do on the page anyway, so a clickjacker gains little by pressing them; a cross-site form
 * post cannot press them at all (it lacks the session's CSRF token).
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

function page(title: string, body: string, lang: Locale = 'en'): string {
  return `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${esc(title)}</title><style>${CSS}</style></head><body>${body}</body></html>`
}

export function html(
  status: number,
  title: string,
  body: string,
  frameAncestors: string,
  lang: Locale = 'en',
): HttpResult {
  return { statusCode: status, headers: headers(frameAncestors), body: page(title, body, lang) }
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

/** A form of the course page: it posts back to the page with the session's CSRF token. */
function pageForm(courseId: string, csrf: string, fields: string, button: string, id = ''): string {
  return (
    `<form${id ? ` id="${id}"` : ''} method="post" action="/learn/${encodeURIComponent(courseId)}">` +
    `<input type="hidden" name="csrf_token" value="${esc(csrf)}">${fields}${button}</form>`
  )
}

/** Pages whose forms post: to this tool only. */
const formPage = (frameAncestors: string, title: string, body: string, lang: Locale): HttpResult => ({
  statusCode: 200,
  headers: headers(frameAncestors, "; form-action 'self'"),
  body: page(title, body, lang),
})

const courseHeader = (course: Course, words: (typeof learnerCopy)[Locale]) =>
  `<nav><a href="/catalog">${esc(words.allCourses)}</a></nav>` +
  `<main><h1 id="course-title">${esc(course.title)}</h1>` +
  (course.description ? `<p>${esc(course.description)}</p>` : '')

/**
 * The learner's course: progress as a labelled `<progress>` (read out with its label), then each
 * module under its own heading with its state and, while the enrollment is active, a button that
 * completes it (described by the module's title, so each reads as "Mark as complete, <title>").
 */
export function coursePage(
  view: Extract<CoursePage, { kind: 'page' }>,
  csrf: string,
  lang: Locale,
  frameAncestors: string,
): HttpResult {
  const words = learnerCopy[lang]
  const { course, progress, status } = view
  const percent = progress.overallProgressPercent
  const modules = progress.modules
    .map(({ module, progress: p }) => {
      const id = esc(module.id)
      const button =
        status === 'active' && p.status !== 'completed'
          ? pageForm(
              course.id,
              csrf,
              `<input type="hidden" name="module_id" value="${id}">`,
              `<button type="submit" id="complete-${id}" aria-describedby="module-title-${id}">${esc(words.complete)}</button>`,
            )
          : ''
      const state = `${module.isRequired ? words.required : words.optional} · ${words.moduleStatus[p.status]}`
      return (
        `<li id="module-${id}"><h3 id="module-title-${id}">${esc(module.title)}</h3>` +
        `<span class="muted" id="module-status-${id}">${esc(state)}</span>${button}</li>`
      )
    })
    .join('')
  const said = words.enrollmentStatus[status]
  const body =
    courseHeader(course, words) +
    `<p><label for="progress" id="progress-label">${esc(words.progressLabel(percent))}</label></p>` +
    `<progress id="progress" max="100" value="${percent}">${percent}%</progress>` +
    (said ? `<p id="enrollment-status" role="status">${esc(said)}</p>` : '') +
    `<h2 id="modules-heading">${esc(words.modules)}</h2>` +
    `<ul id="modules" aria-labelledby="modules-heading">${modules || `<li>${esc(words.noModule)}</li>`}</ul></main>`
  return formPage(frameAncestors, course.title, body, lang)
}

/** A signed-in learner not enrolled in the course: told so, and offered the enrol button. */
export function notEnrolledPage(
  course: Course,
  csrf: string,
  lang: Locale,
  frameAncestors: string,
): HttpResult {
  const words = learnerCopy[lang]
  const button = `<button type="submit" id="enrol-button">${esc(words.enrol)}</button>`
  const body =
    courseHeader(course, words) +
    `<p id="not-enrolled">${esc(words.notEnrolled)}</p>` +
    pageForm(course.id, csrf, '', button, 'enrol') +
    '</main>'
  return formPage(frameAncestors, course.title, body, lang)
}

/** A page that changed nothing: a post without the CSRF token (403), a refusal (409), no such course (404). */
export function problemPage(
  status: 403 | 404 | 409,
  lang: Locale,
  frameAncestors: string,
  code?: string,
): HttpResult {
  const words = learnerCopy[lang]
  const [title, said] =
    status === 403
      ? [words.notAllowedTitle, words.notAllowed]
      : status === 404
        ? [words.notFoundTitle, words.notFound]
        : [words.notAvailableTitle, words.notAvailable]
  const body = `<main><h1>${esc(said)}</h1>${code ? `<p class="error">${esc(code)}</p>` : ''}</main>`
  return html(status, title, body, frameAncestors, lang)
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
