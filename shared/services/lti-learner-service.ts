/**
 * What a launch lands on: the learner's session (a JWT this tool signs, checked against the keys
 * it publishes), the catalog of published courses, a course page with its modules and the
 * learner's progress (enrolled through the one enrollment engine on first visit), and the
 * deep-linking response.
 */
import { randomUUID } from 'node:crypto'
import type { Course } from '../domain/courses/course.ts'
import type { Module } from '../domain/courses/module.ts'
import { progressView, type ProgressView } from '../domain/enrollments/progress.ts'
import type { RefusalCode } from '../domain/enrollments/enrollment.ts'
import { CLAIM, LTI_VERSION, SESSION_SECONDS, type LtiDeployment } from '../domain/lti/lti.ts'
import type { TenantContext } from '../domain/tenants/tenant.ts'
import type { User } from '../domain/users/user.ts'
import { listCourses } from '../store/courses-list.ts'
import { getCourse, listModules } from '../store/courses-store.ts'
import { getEnrollment, getPairs, pairKey } from '../store/enrollments-store.ts'
import { getUser } from '../store/users-store.ts'
import { enroll } from './enrollment-engine.ts'
import { signAsTool, verifyOwn } from './lti-keys-service.ts'
import { toolRoute, type ToolUrls, type VerifiedMessage } from './lti-launch-service.ts'

export const SESSION_COOKIE = 'lms_session'
const SESSION_AUDIENCE = 'lms-learner-session'
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
 * course, else the catalog.
 */
export async function landingPath(tenant: TenantContext, message: VerifiedMessage): Promise<string> {
  const custom = message.claims[CLAIM.custom]
  const linked =
    custom && typeof custom === 'object' ? (custom as Record<string, unknown>).course_id : undefined
  const course = (await publishedCourse(tenant, linked)) ?? (await bound(tenant, message.deployment))
  return course ? `/learn/${course.id}` : '/catalog'
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
  | { readonly kind: 'not_found' }
  | { readonly kind: 'refused'; readonly code: RefusalCode }

/** The course and the learner's progress; a learner not yet enrolled is enrolled (channel `app`). */
export async function coursePage(tenant: TenantContext, user: User, courseId: string): Promise<CoursePage> {
  const course = await getCourse(tenant, courseId)
  if (!course) return { kind: 'not_found' }
  const pair = (await getPairs(tenant, [{ userId: user.id, courseId }])).get(pairKey(user.id, courseId))
  let enrollmentId = pair && pair.status !== 'dropped' ? pair.enrollmentId : undefined
  if (!enrollmentId) {
    if (course.status !== 'published') return { kind: 'not_found' }
    const [result] = await enroll(tenant, [{ userId: user.id, courseId, dueDate: null }], 'app')
    if (!result) throw new Error('The engine returned no result')
    if ('error' in result) return { kind: 'refused', code: result.error }
    enrollmentId = result.ok.id
  }
  const [enrollment, modules] = await Promise.all([
    getEnrollment(tenant, enrollmentId),
    listModules(tenant, courseId),
  ])
  if (!enrollment) return { kind: 'not_found' }
  return { kind: 'page', course, modules, progress: progressView(enrollment, modules) }
}

/** The signed LtiDeepLinkingResponse: one ltiResourceLink per published course. */
export async function deepLinkingResponse(
  tenant: TenantContext,
  message: VerifiedMessage,
  urls: ToolUrls,
): Promise<{ returnUrl: string; jwt: string } | undefined> {
  const settings = message.claims[CLAIM.deepLinkingSettings] as Record<string, unknown> | undefined
  const returnUrl = settings?.deep_link_return_url
  if (typeof returnUrl !== 'string' || !/^https?:\/\//.test(returnUrl)) return undefined
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
