/**
 * NRPS roster sync (decision 0052), against the platform written in the tests
 * (test/helpers/lti-platform.ts): its memberships endpoint pages a context's members with
 * `Link: rel="next"` for a token its token endpoint issued for the NRPS scope (after verifying our
 * client assertion against our JWKS). `lms lti roster sync` and an Instructor launch carrying the
 * NRPS claim give every active Learner member an account and an enrollment in the deployment's course.
 */
import { randomUUID } from 'node:crypto'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { getMembershipService } from '../../shared/store/lti/lti-nrps-store.ts'
import { lms } from '../helpers/cli.ts'
import { course, type CourseOptions } from '../helpers/learning.ts'
import {
  CONTEXT_CLAIM,
  launchClaims,
  LTI,
  NRPS_CLAIM,
  NRPS_SCOPE,
  postForm,
  startLogin,
  registerPlatform,
  startPlatform,
  type Platform,
  type PlatformMember,
} from '../helpers/lti-platform.ts'
import { newTenant, type TestTenant } from '../helpers/tenants.ts'
import { until } from '../helpers/until.ts'

const LEARNER = 'http://purl.imsglobal.org/vocab/lis/v2/membership#Learner'
const INSTRUCTOR = 'http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor'

let t: TestTenant
let platform: Platform
let host: string
let courseId: string
let registrationId: string

async function setUp(settings: CourseOptions['settings'] = {}) {
  t = await newTenant('growth')
  platform = await startPlatform()
  host = `${t.slug}.localhost`
  platform.toolJwks = { url: `http://${host}/api/v1/lti/.well-known/jwks.json`, host }
  courseId = (await course(t, { modules: [{ title: 'One', module_type: 'video' }], settings })).id
  registrationId = await registerPlatform(t.tenant, platform, {
    courseId,
    deepLinking: false,
    services: true,
  })
}

afterEach(() => platform.close())

const member = (roles: string[], over: Partial<PlatformMember> = {}): PlatformMember => {
  const id = randomUUID().slice(0, 8)
  return {
    user_id: `u-${id}`,
    roles,
    email: `m-${id}@example.com`,
    given_name: 'Ada',
    family_name: `Member ${id}`,
    ...over,
  }
}

/** `lms lti roster sync` for `context`, with the memberships URL and deployment given or not. */
const sync = (context: string, withUrl = true) =>
  lms(
    'lti',
    'roster',
    'sync',
    '--tenant',
    t.slug,
    '--registration',
    registrationId,
    '--context',
    context,
    ...(withUrl ? ['--url', platform.membershipsUrl(context), '--deployment', 'deployment-1'] : []),
  )

/** The e-mails of the course's enrolled learners, and their statuses, over the API. */
async function enrolled(): Promise<Map<string, string>> {
  const r = await t.api.get(`/api/v1/courses/${courseId}/enrollments?per_page=200`)
  expect(r.status).toBe(200)
  const out = new Map<string, string>()
  for (const e of r.body.data as { user_id: string; status: string }[]) {
    const u = await t.api.get(`/api/v1/users/${e.user_id}`)
    expect(u.status).toBe(200)
    out.set(u.body.data.email as string, e.status)
  }
  return out
}

async function userEmails(): Promise<string[]> {
  const r = await t.api.get('/api/v1/users?per_page=200')
  expect(r.status).toBe(200)
  return (r.body.data as { email: string }[]).map((u) => u.email)
}

describe('NRPS roster sync: lms lti roster sync', () => {
  beforeEach(() => setUp())

  it('reads every page, gives each active Learner an account and an enrollment, and a second run changes nothing', async () => {
    // Prepare: 6 members on 3 pages; Learners in the full URI and the short form
    const learners = [
      member([LEARNER]),
      member(['Learner']),
      member([LEARNER, 'http://purl.imsglobal.org/vocab/lis/v2/membership/Learner#GuestLearner']),
    ]
    const teacher = member([INSTRUCTOR])
    const inactive = member([LEARNER], { status: 'Inactive' })
    const deleted = member([LEARNER], { status: 'Deleted' })
    platform.members.set('ctx-a', [
      learners[0],
      teacher,
      learners[1],
      inactive,
      deleted,
      learners[2],
    ] as PlatformMember[])

    // Act
    const first = await sync('ctx-a')

    // Assess
    expect(first.code).toBe(0)
    expect(first.json).toEqual({
      members: 6,
      created: 3,
      enrolled: 3,
      refused: [],
      waiting: [],
      pages: 3,
      complete: true,
    })
    expect(platform.membershipPages).toEqual(['ctx-a#1', 'ctx-a#2', 'ctx-a#3'])
    expect(platform.tokenRequests).toEqual([{ scope: NRPS_SCOPE }])
    const byEmail = await enrolled()
    expect([...byEmail.keys()].sort()).toEqual(learners.map((l) => l.email).sort())
    expect([...byEmail.values()]).toEqual(['active', 'active', 'active'])
    const emails = await userEmails()
    for (const other of [teacher, inactive, deleted]) expect(emails).not.toContain(other.email)

    // Act: again, nothing changed on the platform
    const second = await sync('ctx-a')

    // Assess
    expect(second.code).toBe(0)
    expect(second.json).toMatchObject({ members: 6, created: 0, enrolled: 0, refused: [], pages: 3 })
    expect((await enrolled()).size).toBe(3)
  })

  it('lms lti roster sync --help prints its flags and exits 0', async () => {
    // Act
    const r = await lms('lti', 'roster', 'sync', '--help')

    // Assess
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('--tenant S --registration ID --context CONTEXT_ID')
  })

  it('says what is missing, and exits non-zero, when no memberships URL is known for the context', async () => {
    // Act
    const r = await sync('ctx-never-launched', false)

    // Assess
    expect(r.code).not.toBe(0)
    expect(r.json.error.message).toMatch(/memberships URL.*ctx-never-launched.*--url/)
  })

  it('exits non-zero with a clear error when the platform refuses the token, and enrols nobody', async () => {
    // Prepare
    platform.members.set('ctx-b', [member([LEARNER])])
    platform.refuseTokens = true

    // Act
    const r = await sync('ctx-b')

    // Assess
    expect(r.code).not.toBe(0)
    expect(r.json.error.message).toMatch(/no token for the NRPS scope: http_401/)
    expect(platform.membershipPages).toEqual([])
    expect((await enrolled()).size).toBe(0)
  })
})

describe('NRPS roster sync: the course rules', () => {
  beforeEach(() => setUp({ seatLimit: 2 }))

  it('reports the member beyond the seat limit with course_full, and enrols the others', async () => {
    // Prepare
    const learners = [member([LEARNER]), member([LEARNER]), member([LEARNER])]
    platform.members.set('ctx-c', learners)

    // Act
    const r = await sync('ctx-c')

    // Assess
    expect(r.code).toBe(0)
    expect(r.json).toMatchObject({
      members: 3,
      created: 3,
      enrolled: 2,
      refused: [{ user_id: learners[2]?.user_id, code: 'course_full' }],
    })
    expect([...(await enrolled()).keys()].sort()).toEqual([learners[0]?.email, learners[1]?.email].sort())
  })
})

describe('NRPS roster sync: an Instructor launch', () => {
  beforeEach(() => setUp())

  /** A launch (an Instructor's unless `roles` says otherwise) carrying the NRPS claim for `context`. */
  async function nrpsLaunch(context: string, roles = [INSTRUCTOR]) {
    const login = await startLogin(host, platform, `http://${host}/api/v1/lti/launch`)
    const claims = launchClaims(platform, login.nonce, {
      [LTI.roles]: roles,
      [CONTEXT_CLAIM]: { id: context, label: 'C', title: 'Course C' },
      [NRPS_CLAIM]: { context_memberships_url: platform.membershipsUrl(context), service_versions: ['2.0'] },
    })
    return postForm(
      host,
      '/api/v1/lti/launch',
      { id_token: await platform.sign(claims), state: login.state },
      login.cookie,
    )
  }

  it('syncs the roster, and keeps the service so that the CLI finds it', async () => {
    // Prepare
    const learners = [member([LEARNER]), member([LEARNER]), member([LEARNER])]
    platform.members.set('ctx-d', [...learners, member([INSTRUCTOR])])

    // Act
    const reply = await nrpsLaunch('ctx-d')

    // Assess: the launch lands as usual; the learners are enrolled
    expect(reply.status).toBe(302)
    expect(String(reply.headers.location)).toBe(`http://${host}/learn/${courseId}`)
    const byEmail = await until(enrolled, (m) => learners.every((l) => m.has(l.email ?? '')))
    for (const l of learners) expect(byEmail.get(l.email ?? '')).toBe('active')

    // Act: the CLI, without --url, reads the service the launch kept
    const r = await sync('ctx-d', false)

    // Assess
    expect(r.code).toBe(0)
    expect(r.json).toMatchObject({ members: 4, created: 0, enrolled: 0, refused: [] })

    // Act: the registration is deleted; the service kept for its context goes with it
    expect(await getMembershipService(t.tenant, registrationId, 'ctx-d')).toBeDefined()
    expect((await t.api.delete(`/api/v1/lti/registrations/${registrationId}`)).status).toBe(204)

    // Assess
    expect(await getMembershipService(t.tenant, registrationId, 'ctx-d')).toBeUndefined()
  })

  it('syncs a context once per window: a second Instructor launch soon after reads no roster', async () => {
    // Prepare
    platform.members.set('ctx-g', [member([LEARNER])])
    expect((await nrpsLaunch('ctx-g')).status).toBe(302)
    expect(platform.membershipPages).toEqual(['ctx-g#1'])

    // Act: the sync runs inside the launch, so its answer comes after any read
    const again = await nrpsLaunch('ctx-g')

    // Assess
    expect(again.status).toBe(302)
    expect(platform.membershipPages).toEqual(['ctx-g#1'])
  })

  it('lands the instructor even when the platform refuses the token', async () => {
    // Prepare
    platform.members.set('ctx-e', [member([LEARNER])])
    platform.refuseTokens = true

    // Act
    const reply = await nrpsLaunch('ctx-e')

    // Assess
    expect(reply.status).toBe(302)
    expect(String(reply.headers.location)).toBe(`http://${host}/learn/${courseId}`)
    expect(platform.membershipPages).toEqual([])
  })

  it('reads no roster at a Learner launch carrying the claim', async () => {
    // Prepare
    platform.members.set('ctx-f', [member([LEARNER])])

    // Act: the sync runs inside the launch, so its answer comes after any read
    const reply = await nrpsLaunch('ctx-f', [LEARNER])

    // Assess
    expect(reply.status).toBe(302)
    expect(platform.membershipPages).toEqual([])
    expect(platform.tokenRequests).toEqual([])
  })
})
