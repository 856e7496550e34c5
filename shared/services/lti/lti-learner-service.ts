/**
 * What a launch lands on: the learner's session (a JWT this tool signs, checked against the keys
 * it publishes), the catalog of published courses, a course page with its modules and the
 * learner's progress, and the deep-linking response.
 *
 * Enrolment never happens on a GET: the session cookie is SameSite=None (the pages live in the
 * platform's iframe), so any site could make a learner's browser fetch `/learn/<course>`. A launch
 * enrols in the course it lands on (the platform's signed message asked for it); a course picked
 * from the catalog is enrolled by a form post carrying a token only the page itself can read.
 */
import { randomUUID } from 'node:crypto'
import type { Course } from '../../domain/courses/course.ts'
import type { Module } from '../../domain/courses/module.ts'
import { progressView, type ProgressView } from '../../domain/enrollments/progress.ts'
import type { RefusalCode } from '../../domain/enrollments/enrollment.ts'
import {
  CLAIM,
  deepLinkReturnUrl,
  LTI_VERSION,
  SESSION_SECONDS,
  type LtiDeployment,
} from '../../domain/lti/lti.ts'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import type { User } from '../../domain/users/user.ts'
import { listCourses } from '../../store/courses/courses-list.ts'
import { getCourse, listModules } from '../../store/courses/courses-store.ts'
import { getEnrollment, getPairs, pairKey } from '../../store/enrollments/enrollments-store.ts'
import { getUser } from '../../store/users/users-store.ts'
import { enroll } from '../enrollments/enrollment-engine.ts'
import { linkLineItem } from './lti-ags-service.ts'
import { signAsTool, verifyOwn } from './lti-keys-service.ts'
import { toolRoute, type ToolUrls, type VerifiedMessage } from './lti-launch-service.ts'

export const SESSION_COOKIE = 'lms_session'
const SESSION_AUDIENCE = 'lms-learner-session'
const ENROL_AUDIENCE = 'lms-learner-enrol'
const sessionIssuer = (tenant: TenantContext) => `lms:tenant:${tenant.id}`

export function newSession(tenant: TenantContext, user: User): Promise<string> {
  return signAsTool(
    tenant,
    { sub: user.id },
    { audience: SESSION_AUDIENCE, issuer: sessionIssuer(tenant), expiresInSeconds: SESSION_SECONDS },
  )
}

/** The learner of a session cookie: undefined when it is absent, forged, expired or the user inactive. */
export async function sessionUser(
  tenant: TenantContext,
  token: string | undefined,
): Promise<User | undefined> {
  if (!token) return undefined
  try {
    const payload = await verifyOwn(tenant, token, {
      audience: SESSION_AUDIENCE,
      issuer: sessionIssuer(tenant),
    })
    const user = typeof payload.sub === 'string' ? await getUser(tenant, payload.sub) : undefined
    return user?.isActive && user.erasedAt === undefined ? user : undefined
  } catch {
    return undefined
  }
}

async function publishedCourse(tenant: TenantContext, id: unknown): Promise<Course | undefined> {
  if (typeof id !== 'string' || id === '' || id.length > 100) return undefined
  const course = await getCourse(tenant, id)
  return course?.status === 'published' ? course : undefined
}

/**
 * Where a launch lands: the course a deep link put in its custom claim, else the deployment's
 * course, else the catalog. The learner is enrolled in a landing course (once: the engine answers
 * an existing enrollment as it is); a refusal (a full course, say) shows on the course page.
 */
export async function landingPath(
  tenant: TenantContext,
  message: VerifiedMessage,
  user: User,
): Promise<string> {
  const custom = message.claims[CLAIM.custom]
  const linked =
    custom && typeof custom === 'object' ? (custom as Record<string, unknown>).course_id : undefined
  const course = (await publishedCourse(tenant, linked)) ?? (await bound(tenant, message.deployment))
  if (!course) return '/catalog'
  if (course.status === 'published' && !(await enrolledIn(tenant, user, course.id)))
    await enroll(tenant, [{ userId: user.id, courseId: course.id, dueDate: null }], 'app')
  await linkLineItem(tenant, message, await enrolledIn(tenant, user, course.id))
  return `/learn/${course.id}`
}

/** The learner's live enrollment in the course (a dropped one does not count). */
async function enrolledIn(tenant: TenantContext, user: User, courseId: string): Promise<string | undefined> {
  const pair = (await getPairs(tenant, [{ userId: user.id, courseId }])).get(pairKey(user.id, courseId))
  return pair && pair.status !== 'dropped' ? pair.enrollmentId : undefined
}

const bound = (tenant: TenantContext, d: LtiDeployment) =>
  d.courseId ? getCourse(tenant, d.courseId) : Promise.resolve(undefined)

export async function catalog(tenant: TenantContext): Promise<Course[]> {
  const { items } = await listCourses(tenant, {
    status: 'published',
    sortBy: 'title',
    order: 'asc',
    offset: 0,
    limit: 200,
  })
  return items
}

export type CoursePage =
  | {
      readonly kind: 'page'
      readonly course: Course
      readonly modules: readonly Module[]
      readonly progress: ProgressView
    }
  | { readonly kind: 'enrol'; readonly course: Course; readonly token: string }
  | { readonly kind: 'not_found' }

/** The course and the learner's progress; a learner not enrolled gets the enrol form instead. */
export async function coursePage(tenant: TenantContext, user: User, courseId: string): Promise<CoursePage> {
  const course = await getCourse(tenant, courseId)
  if (!course) return { kind: 'not_found' }
  const enrollmentId = await enrolledIn(tenant, user, courseId)
  if (!enrollmentId) {
    if (course.status !== 'published') return { kind: 'not_found' }
    return { kind: 'enrol', course, token: await enrolToken(tenant, user, courseId) }
  }
  const [enrollment, modules] = await Promise.all([
    getEnrollment(tenant, enrollmentId),
    listModules(tenant, courseId),
  ])
  if (!enrollment) return { kind: 'not_found' }
  return { kind: 'page', course, modules, progress: progressView(enrollment, modules) }
}

/** Good for this learner and this course only, for as long as a session lasts. */
function enrolToken(tenant: TenantContext, user: User, courseId: string): Promise<string> {
  return signAsTool(
    tenant,
    { sub: user.id, course_id: courseId },
    { audience: ENROL_AUDIENCE, issuer: sessionIssuer(tenant), expiresInSeconds: SESSION_SECONDS },
  )
}

async function enrolTokenFits(
  tenant: TenantContext,
  user: User,
  courseId: string,
  token: string | undefined,
): Promise<boolean> {
  if (!token) return false
  try {
    const payload = await verifyOwn(tenant, token, {
      audience: ENROL_AUDIENCE,
      issuer: sessionIssuer(tenant),
    })
    return payload.sub === user.id && payload.course_id === courseId
  } catch {
    return false
  }
}

export type EnrolOutcome =
  | { readonly kind: 'enrolled' }
  | { readonly kind: 'forbidden' }
  | { readonly kind: 'not_found' }
  | { readonly kind: 'refused'; readonly code: RefusalCode }

/** The enrol form's post: the page's token must name this learner and this course. */
export async function enrolFromPage(
  tenant: TenantContext,
  user: User,
  courseId: string,
  token: string | undefined,
): Promise<EnrolOutcome> {
  if (!(await enrolTokenFits(tenant, user, courseId, token))) return { kind: 'forbidden' }
  const course = await getCourse(tenant, courseId)
  if (!course || course.status !== 'published') return { kind: 'not_found' }
  const [result] = await enroll(tenant, [{ userId: user.id, courseId, dueDate: null }], 'app')
  if (!result) throw new Error('The engine returned no result')
  // A second post of the same form (a double click) finds the first one's enrollment.
  if ('error' in result && result.error !== 'duplicate') return { kind: 'refused', code: result.error }
  return { kind: 'enrolled' }
}

/** The signed LtiDeepLinkingResponse: one ltiResourceLink per published course. */
export async function deepLinkingResponse(
  tenant: TenantContext,
  message: VerifiedMessage,
  urls: ToolUrls,
): Promise<{ returnUrl: string; jwt: string } | undefined> {
  const settings = message.claims[CLAIM.deepLinkingSettings] as Record<string, unknown> | undefined
  const returnUrl = deepLinkReturnUrl(settings)
  if (returnUrl === undefined) return undefined
  const courses = await catalog(tenant)
  const items = courses.map((c) => ({
    type: 'ltiResourceLink',
    title: c.title,
    ...(c.shortDescription ? { text: c.shortDescription } : {}),
    url: toolRoute(urls, 'launch'),
    custom: { course_id: c.id },
  }))
  const data = settings?.data
  const jwt = await signAsTool(
    tenant,
    {
      nonce: randomUUID(),
      [CLAIM.messageType]: 'LtiDeepLinkingResponse',
      [CLAIM.version]: LTI_VERSION,
      [CLAIM.deploymentId]: message.deployment.deploymentId,
      [CLAIM.contentItems]: items,
      ...(typeof data === 'string' ? { [CLAIM.data]: data } : {}),
    },
    { issuer: message.registration.clientId, audience: message.registration.issuer, expiresInSeconds: 300 },
  )
  return { returnUrl, jwt }
}
