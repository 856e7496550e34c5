/**
 * What a launch lands on: the learner's session (a JWT this tool signs, checked against the keys
 * it publishes), the catalog of published courses, a course page with its modules and the
 * learner's progress, and the deep-linking response.
 *
 * Nothing changes on a GET: the session cookie is SameSite=None (the pages live in the platform's
 * iframe), so any site could make a learner's browser fetch `/learn/<course>`. A launch enrols in
 * the course it lands on (the platform's signed message asked for it); a course picked from the
 * catalog is enrolled, and a module completed, by a form post carrying the session's CSRF token
 * (checked by the handler: domain/lti/learner-csrf.ts), which only the page itself can read.
 */
import { randomUUID } from 'node:crypto'
import type { Course } from '../../domain/courses/course.ts'
import { progressView, type ProgressView } from '../../domain/enrollments/progress.ts'
import type { EnrollmentStatus } from '../../domain/enrollments/enrollment.ts'
import { NotFoundError, RuleViolationError } from '../../domain/errors.ts'
import {
  CLAIM,
  deepLinkReturnUrl,
  LTI_VERSION,
  SESSION_SECONDS,
  type LtiDeployment,
} from '../../domain/lti/lti.ts'
import type { Tenant, TenantContext } from '../../domain/tenants/tenant.ts'
import type { User } from '../../domain/users/user.ts'
import { listCourses } from '../../store/courses/courses-list.ts'
import { getCourse, listModules } from '../../store/courses/courses-store.ts'
import { getEnrollment, getPairs, pairKey } from '../../store/enrollments/enrollments-store.ts'
import { getUser } from '../../store/users/users-store.ts'
import { enroll } from '../enrollments/enrollment-engine.ts'
import { recordActivity } from '../enrollments/learner-service.ts'
import { recordLogin } from '../users/users-service.ts'
import { linkLineItem } from './lti-ags-service.ts'
import { signAsTool, verifyOwn } from './lti-keys-service.ts'
import { toolRoute, type ToolUrls, type VerifiedMessage } from './lti-launch-service.ts'

export const SESSION_COOKIE = 'lms_session'
const SESSION_AUDIENCE = 'lms-learner-session'
const sessionIssuer = (tenant: TenantContext) => `lms:tenant:${tenant.id}`

/**
 * A launch is a sign-in, recorded as the API and CLI record one (users-service `recordLogin`:
 * `last_login_at`, the period's active users, the activity report), then the session it opens.
 */
export async function signIn(tenant: Tenant, user: User): Promise<string> {
  await recordLogin(tenant, user.id)
  return newSession(tenant, user)
}

function newSession(tenant: TenantContext, user: User): Promise<string> {
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
      readonly status: EnrollmentStatus
      readonly progress: ProgressView
    }
  | { readonly kind: 'not_enrolled'; readonly course: Course }
  | { readonly kind: 'not_found' }

/** The course and the learner's progress; a learner not enrolled is told so (and offered the form). */
export async function coursePage(tenant: TenantContext, user: User, courseId: string): Promise<CoursePage> {
  const course = await getCourse(tenant, courseId)
  if (!course) return { kind: 'not_found' }
  const enrollmentId = await enrolledIn(tenant, user, courseId)
  if (!enrollmentId)
    return course.status === 'published' ? { kind: 'not_enrolled', course } : { kind: 'not_found' }
  // Read strongly: the page a completion's redirect lands on must show that completion.
  const [enrollment, modules] = await Promise.all([
    getEnrollment(tenant, enrollmentId, { consistent: true }),
    listModules(tenant, courseId),
  ])
  if (!enrollment) return { kind: 'not_found' }
  return { kind: 'page', course, status: enrollment.status, progress: progressView(enrollment, modules) }
}

export type PagePostOutcome =
  | { readonly kind: 'done' }
  | { readonly kind: 'not_found' }
  | { readonly kind: 'refused'; readonly code: string }

/** The enrol form's post (its CSRF token already checked): the engine decides, as for any enrolment. */
export async function enrolFromPage(
  tenant: TenantContext,
  user: User,
  courseId: string,
): Promise<PagePostOutcome> {
  const course = await getCourse(tenant, courseId)
  if (!course || course.status !== 'published') return { kind: 'not_found' }
  const [result] = await enroll(tenant, [{ userId: user.id, courseId, dueDate: null }], 'app')
  if (!result) throw new Error('The engine returned no result')
  // A second post of the same form (a double click) finds the first one's enrollment.
  if ('error' in result && result.error !== 'duplicate') return { kind: 'refused', code: result.error }
  return { kind: 'done' }
}

/**
 * A module's "mark as complete" post (its CSRF token already checked), recorded as any learner
 * activity is (learner-service `recordActivity`: progress, and the enrollment's completion with
 * its certificate and events when it was the last required module). A module already completed
 * is left as it is, so a second post of the same form (a double click, a reload) changes nothing.
 */
export async function completeFromPage(
  tenant: TenantContext,
  user: User,
  courseId: string,
  moduleId: string,
): Promise<PagePostOutcome> {
  const enrollmentId = await enrolledIn(tenant, user, courseId)
  const enrollment = enrollmentId
    ? await getEnrollment(tenant, enrollmentId, { consistent: true })
    : undefined
  if (!enrollment) return { kind: 'not_found' }
  if (enrollment.modules[moduleId]?.status === 'completed') return { kind: 'done' }
  try {
    await recordActivity(tenant, enrollment.id, { moduleId, kind: 'complete' })
    return { kind: 'done' }
  } catch (err) {
    if (err instanceof NotFoundError) return { kind: 'not_found' }
    if (err instanceof RuleViolationError) return { kind: 'refused', code: err.code }
    throw err
  }
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
