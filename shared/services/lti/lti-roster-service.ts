/**
 * NRPS roster sync (decision 0052): the memberships of a platform context, read page by page
 * (`Link: rel="next"`, every URL through the SSRF guard) with a token for the NRPS scope, and every
 * active Learner member given an account (the launch's own account rules) and an enrollment in the
 * deployment's course (the one enrollment engine: seat limit, waitlist, window, prerequisites).
 * Idempotent: a member already linked and enrolled costs reads only. A member the rules refuse is
 * reported with the refusal's code, never silently dropped.
 */
import { config } from '../../config.ts'
import type { RefusalCode } from '../../domain/enrollments/enrollment.ts'
import { NotFoundError, RuleViolationError } from '../../domain/errors.ts'
import { CLAIM, roleFromLtiRoles, type LtiDeployment, type LtiRegistration } from '../../domain/lti/lti.ts'
import {
  isLearner,
  isReadable,
  MEMBERSHIP_MEDIA_TYPE,
  membersOf,
  membershipServiceOf,
  nextLink,
  NRPS_SCOPE,
  type Member,
  type UnreadableMember,
} from '../../domain/lti/nrps.ts'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import { mapLimit } from '../../concurrency.ts'
import { errorFields, log } from '../../log.ts'
import { sendOutbound } from '../../net/outbound-http.ts'
import { getMembershipService, keepMembershipService } from '../../store/lti/lti-nrps-store.ts'
import { getDeployment, getRegistration } from '../../store/lti/lti-store.ts'
import { enroll } from '../enrollments/enrollment-engine.ts'
import { AccountRefused, settleAccount, type AccountRefusal } from './lti-accounts-service.ts'
import type { VerifiedMessage } from './lti-launch-service.ts'
import { forgetPlatformToken, PlatformTokenRefused, platformToken } from './lti-platform-tokens.ts'

/** Pages the CLI follows at most; a longer roster reports `complete: false` (run it again). */
export const CLI_MAX_PAGES = 100
/** An Instructor launch syncs inline, within these bounds, so that it stays quick. */
export const LAUNCH_MAX_PAGES = 5
export const LAUNCH_BUDGET_MS = 4_000
/**
 * Instructor launches of one context sync its roster once in this window: a teacher opening the
 * tool many times an hour costs one sync, not one each (the CLI syncs at any time).
 */
export const LAUNCH_SYNC_WINDOW_MS = 15 * 60_000
const REQUEST_TIMEOUT_MS = 10_000
/** A request started near the deadline still gets this long. */
const MIN_REQUEST_TIMEOUT_MS = 500
/** A page of a few hundred members with names and e-mails fits well within this. */
const MAX_PAGE_BYTES = 2 * 1024 * 1024
/** Members whose accounts are settled at once (each is a few reads, a creation a transaction). */
const ACCOUNTS_IN_PARALLEL = 4
/** Learners settled and enrolled between two looks at the deadline (one engine call). */
const LEARNERS_PER_STEP = 20

export type RosterRefusalCode = AccountRefusal | Exclude<RefusalCode, 'duplicate'> | 'member_unreadable'

/** The answer of a sync: the contract's three counts, then what the tool adds (0052). */
export interface RosterSyncResult {
  /** Members listed by the pages read (every role and status). */
  readonly members: number
  /** Accounts this sync created. */
  readonly created: number
  /** Enrollments this sync made (active, waitlisted or pending approval). */
  readonly enrolled: number
  /** Active Learner members this sync gave no enrollment, with why (a full course: `course_full`). */
  readonly refused: readonly { readonly user_id: string | null; readonly code: RosterRefusalCode }[]
  /** Enrollments made that wait: on the course's waitlist, or for approval. */
  readonly waiting: readonly { readonly user_id: string; readonly status: string }[]
  readonly pages: number
  /** False when the page cap or the time budget stopped the sync before the last page. */
  readonly complete: boolean
}

/** Why no sync could run: answered by the CLI as a 422 naming what is missing. */
export class RosterUnavailable extends RuleViolationError {
  constructor(message: string) {
    super('lti.roster_unavailable', message)
  }
}

export interface RosterTarget {
  readonly registration: LtiRegistration
  readonly deployment: LtiDeployment
  readonly membershipsUrl: string
}

export interface SyncLimits {
  readonly maxPages: number
  /** Epoch milliseconds after which no further page is read. */
  readonly deadlineMs?: number
}

interface Tally {
  members: number
  created: number
  enrolled: number
  readonly refused: { user_id: string | null; code: RosterRefusalCode }[]
  readonly waiting: { user_id: string; status: string }[]
}

/** @throws RosterUnavailable when the token, a page or the course is not to be had */
export async function syncRoster(
  tenant: TenantContext,
  target: RosterTarget,
  limits: SyncLimits,
): Promise<RosterSyncResult> {
  const { registration, deployment } = target
  const courseId = deployment.courseId
  if (!courseId)
    throw new RosterUnavailable(
      `Deployment ${deployment.deploymentId} is bound to no course (lms lti deployment add --course)`,
    )
  const left = () => (limits.deadlineMs ?? Infinity) - Date.now()
  const run: Run = { tenant, registration, courseId, left }
  const tally: Tally = { members: 0, created: 0, enrolled: 0, refused: [], waiting: [] }
  let url: string | undefined = target.membershipsUrl
  let pages = 0
  let finished = true
  while (url && finished && pages < limits.maxPages && (pages === 0 || left() > 0)) {
    const page = await fetchPage(run, url)
    pages += 1
    finished = await settlePage(run, page.members, tally)
    url = page.next
  }
  return { ...tally, pages, complete: finished && url === undefined }
}

/** One sync's fixed parts: whose roster, into which course, and the time it has left. */
interface Run {
  readonly tenant: TenantContext
  readonly registration: LtiRegistration
  readonly courseId: string
  readonly left: () => number
}

const requestTimeout = (run: Run) =>
  Math.max(MIN_REQUEST_TIMEOUT_MS, Math.min(REQUEST_TIMEOUT_MS, run.left()))

async function fetchPage(run: Run, url: string) {
  const { tenant, registration } = run
  const token = await tokenFor(run)
  const res = await sendOutbound({
    url,
    method: 'GET',
    headers: { authorization: `Bearer ${token}`, accept: MEMBERSHIP_MEDIA_TYPE },
    timeoutMs: requestTimeout(run),
    maxResponseBytes: MAX_PAGE_BYTES,
    guard: { allowLoopback: config.allowLoopbackTargets },
  })
  if (res.kind === 'failure')
    throw new RosterUnavailable(`The memberships page could not be read (${res.reason}: ${res.message})`)
  if (res.status === 401) forgetPlatformToken(tenant, registration, NRPS_SCOPE)
  if (res.status !== 200)
    throw new RosterUnavailable(`The platform answered the memberships page with ${res.status}`)
  let body: unknown
  try {
    body = JSON.parse(res.body)
  } catch {
    body = undefined
  }
  const members = membersOf(body)
  if (!members)
    throw new RosterUnavailable('The memberships page is not a membership container (or too large)')
  return { members, next: nextLink(res.headers.link, url) }
}

async function tokenFor(run: Run): Promise<string> {
  try {
    return await platformToken(run.tenant, run.registration, NRPS_SCOPE, requestTimeout(run))
  } catch (err) {
    if (err instanceof PlatformTokenRefused)
      throw new RosterUnavailable(`The platform gave no token for the NRPS scope: ${err.reason}`)
    throw err
  }
}

/**
 * One page: its active learners, a step at a time, get accounts, then one engine call for their
 * enrollments. @returns false when the time ran out before the page's last step
 */
async function settlePage(
  run: Run,
  members: readonly (Member | UnreadableMember)[],
  tally: Tally,
): Promise<boolean> {
  tally.members += members.length
  for (const m of members)
    if (!isReadable(m)) tally.refused.push({ user_id: m.userId, code: 'member_unreadable' })
  const learners = members.filter(isReadable).filter((m) => m.active && isLearner(m.roles))
  for (let i = 0; i < learners.length; i += LEARNERS_PER_STEP) {
    if (i > 0 && run.left() <= 0) return false
    await settleStep(run, learners.slice(i, i + LEARNERS_PER_STEP), tally)
  }
  return true
}

async function settleStep(run: Run, learners: readonly Member[], tally: Tally): Promise<void> {
  const accounts = await mapLimit(learners, ACCOUNTS_IN_PARALLEL, (m) => account(run, m))
  const settled: { member: Member; userId: string }[] = []
  accounts.forEach((a, i) => {
    const member = learners[i] as Member
    if ('refusal' in a) return void tally.refused.push({ user_id: member.userId, code: a.refusal })
    if (a.created) tally.created += 1
    settled.push({ member, userId: a.userId })
  })
  const rows = settled.map((s) => ({ userId: s.userId, courseId: run.courseId, dueDate: null }))
  // The launch's channel: the platform asked for these enrollments, as it does at a launch.
  const results = await enroll(run.tenant, rows, 'app')
  results.forEach((r, i) => {
    const userId = settled[i]?.member.userId ?? null
    if ('ok' in r) {
      tally.enrolled += 1
      if (r.ok.status !== 'active' && userId) tally.waiting.push({ user_id: userId, status: r.ok.status })
    } else if (r.error !== 'duplicate') tally.refused.push({ user_id: userId, code: r.error })
  })
}

type AccountOutcome =
  { readonly userId: string; readonly created: boolean } | { readonly refusal: AccountRefusal }

async function account(run: Run, member: Member): Promise<AccountOutcome> {
  try {
    const { user, created } = await settleAccount(run.tenant, run.registration.issuer, member.claims)
    return { userId: user.id, created }
  } catch (err) {
    if (err instanceof AccountRefused) return { refusal: err.why }
    throw err
  }
}

/**
 * `lms lti roster sync`: the context's memberships URL is `url` when given, else the one the last
 * Instructor launch of that context carried; the deployment likewise.
 * @throws NotFoundError, RosterUnavailable
 */
export async function syncContext(
  tenant: TenantContext,
  input: { registrationId: string; contextId: string; url?: string; deploymentId?: string },
): Promise<RosterSyncResult> {
  const registration = await getRegistration(tenant, input.registrationId)
  if (!registration) throw new NotFoundError('lti_registration')
  if (!registration.isActive) throw new RosterUnavailable('The registration is deactivated')
  const kept = await getMembershipService(tenant, registration.id, input.contextId)
  const membershipsUrl = input.url ?? kept?.membershipsUrl
  const deploymentId = input.deploymentId ?? kept?.deploymentId
  if (!membershipsUrl || !deploymentId)
    throw new RosterUnavailable(
      `No memberships URL is known for context ${input.contextId}: launch it once as an Instructor with the NRPS claim, or give --url and --deployment`,
    )
  const deployment = await getDeployment(tenant, registration.id, deploymentId)
  if (!deployment) throw new NotFoundError('lti_deployment')
  return syncRoster(tenant, { registration, deployment, membershipsUrl }, { maxPages: CLI_MAX_PAGES })
}

/**
 * An Instructor launch carrying the NRPS claim: the service is kept for the CLI, and the roster
 * synced inline within the launch's bounds, unless a launch of the context did both less than
 * `LAUNCH_SYNC_WINDOW_MS` ago. Never throws: the launch goes on whatever happens here.
 */
export async function syncOnInstructorLaunch(tenant: TenantContext, message: VerifiedMessage): Promise<void> {
  const service = membershipServiceOf(message.claims)
  if (!service || roleFromLtiRoles(message.claims[CLAIM.roles]) !== 'instructor') return
  const ids = { tenantId: tenant.id, registrationId: message.registration.id, contextId: service.contextId }
  try {
    const now = Date.now()
    const due = await keepMembershipService(
      tenant,
      {
        registrationId: message.registration.id,
        contextId: service.contextId,
        deploymentId: message.deployment.deploymentId,
        membershipsUrl: service.membershipsUrl,
        seenAt: new Date(now).toISOString(),
      },
      new Date(now - LAUNCH_SYNC_WINDOW_MS).toISOString(),
    )
    if (!due) return
    const result = await syncRoster(
      tenant,
      {
        registration: message.registration,
        deployment: message.deployment,
        membershipsUrl: service.membershipsUrl,
      },
      { maxPages: LAUNCH_MAX_PAGES, deadlineMs: Date.now() + LAUNCH_BUDGET_MS },
    )
    const { members, created, enrolled, pages, complete } = result
    log('info', 'lti roster synced at launch', {
      ...ids,
      members,
      created,
      enrolled,
      refused: result.refused.length,
      pages,
      complete,
    })
  } catch (err) {
    // A platform that answers no roster is logged for the operator; the launch itself succeeds.
    if (err instanceof RosterUnavailable)
      log('info', 'lti roster not synced at launch', { ...ids, reason: err.message })
    else log('error', 'lti roster sync at launch failed', { ...ids, ...errorFields(err) })
  }
}
