/**
 * The five reports (document 001, "Reports"; docs/decisions/0018). Tenant-wide listings read the
 * keys designed for them (reports-store); a course, user or group narrows the read to that
 * course's, user's or group's enrollments, filtered, sorted and paged here. Rows are built by the
 * pure rules of shared/domain/reports.
 */
import { mapLimit } from '../../concurrency.ts'
import type { Course } from '../../domain/courses/course.ts'
import type { Enrollment } from '../../domain/enrollments/enrollment.ts'
import { ValidationError } from '../../domain/errors.ts'
import { complianceRow, complianceStatus, isAssignment } from '../../domain/reports/compliance.ts'
import {
  addTallies,
  emptyTally,
  performanceRow,
  sumTallies,
  type CourseTally,
} from '../../domain/reports/course-performance.ts'
import { periodParts } from '../../domain/reports/period-days.ts'
import { sumCourseDayTallies, tallyCreatedBetween } from '../../store/reports/course-day-tallies.ts'
import { compareScore, completionRow, enrollmentRow } from '../../domain/reports/enrollment-rows.ts'
import type {
  ComplianceRow,
  ComplianceStatus,
  CompletionRow,
  CoursePerformanceRow,
  EnrollmentRow,
  UserActivityRow,
} from '../../domain/reports/rows.ts'
import {
  activeUserIds,
  activityPeriod,
  activityRow,
  byRecentActivity,
  isActive,
  latestInPeriod,
  type Period,
} from '../../domain/reports/user-activity.ts'
import { activeSince, dayOf, nextDayStart } from '../../domain/reports/activity-latest.ts'
import {
  countLatestBetween,
  latestDays,
  userActivitySince,
  usersByLatest,
  usersOfTypeByLatest,
} from '../../store/reports/activity-latest-reads.ts'
import type { EnrollmentStatus } from '../../domain/enrollments/enrollment.ts'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import type { UserType } from '../../domain/users/user.ts'
import { getCourse, getCategoryByName } from '../../store/courses/courses-store.ts'
import { courseTitles } from '../../store/reports/course-titles.ts'
import { allCourseTallies, getCourseTallies } from '../../store/reports/course-report-items.ts'
import {
  listCourseEnrollments,
  listUserEnrollments,
  MEMBER_QUERIES_IN_FLIGHT,
} from '../../store/enrollments/enrollments-list.ts'
import { assignmentSortValue } from '../../store/reports/report-indexes.ts'
import {
  allCompletions,
  assignmentsInStatus,
  completionsRangeTotal,
  enrolledRangeTotal,
  completionsRangeParams,
  enrolledRangeParams,
  pageOfAssignments,
  pageOf as pageOfRange,
  reportableCourses,
  tenantEnrollmentCounters,
} from '../../store/reports/reports-store.ts'
import { completionsByScoreParams } from '../../store/reports/report-score-reads.ts'
import {
  courseCompletionsParams,
  courseEnrollmentsPageParams,
  pageByKey,
  pageOfCourseAssignments,
  withTallyTotal,
} from '../../store/reports/course-report-pages.ts'
import { pageOfStatusEnrollments } from '../../store/reports/status-enrollment-pages.ts'
import { currentStatusParams, readExpiryHistogram } from '../../store/reports/compliance-histogram-items.ts'
import { complianceTotals } from '../../domain/reports/compliance-totals.ts'
import {
  allUsersActivity,
  enrollmentsActiveSince,
  usersOfType,
  usersSignedInDuring,
  type EnrollmentActivity,
  type UserActivityEntry,
} from '../../store/reports/activity-reads.ts'
import { batchGetUsers, getUserCounters, type UserCounters } from '../../store/users/users-store.ts'
import { memberUserIds } from '../groups/groups-service.ts'

export interface PageRequest {
  readonly offset: number
  readonly limit: number
}

export interface Listed<R> {
  readonly items: R[]
  readonly total: number
}

const nowIso = () => new Date().toISOString()
const byKey = <T>(key: (t: T) => string, order: 'asc' | 'desc') => {
  const dir = order === 'asc' ? 1 : -1
  return (a: T, b: T) => (key(a) < key(b) ? -dir : key(a) > key(b) ? dir : 0)
}
const pageOf = <T>(list: readonly T[], p: PageRequest): Listed<T> => ({
  items: list.slice(p.offset, p.offset + p.limit),
  total: list.length,
})
/** Strictly between the bounds, as the `_after` / `_before` filters read. */
const between = (at: string | null, after?: string, before?: string) =>
  at !== null && (!after || at > after) && (!before || at < before)

const titles = (tenant: TenantContext, list: readonly Enrollment[]): Promise<Map<string, string>> =>
  courseTitles(
    tenant,
    list.map((e) => e.courseId),
  )

interface Scope {
  readonly courseId?: string
  readonly userId?: string
  readonly groupId?: string
}

/**
 * The enrollments of a course, a user or a group's members (each narrowed by the others), or
 * undefined when the report is tenant-wide. An unknown group has no members: nothing matches.
 */
async function scopedEnrollments(tenant: TenantContext, s: Scope): Promise<Enrollment[] | undefined> {
  if (!s.courseId && !s.userId && !s.groupId) return undefined
  const members = s.groupId ? ((await memberUserIds(tenant, s.groupId)) ?? new Set<string>()) : undefined
  let list: Enrollment[]
  if (s.userId) list = await listUserEnrollments(tenant, s.userId)
  else if (s.courseId) list = await listCourseEnrollments(tenant, s.courseId)
  else {
    const lists = await mapLimit([...(members ?? [])], MEMBER_QUERIES_IN_FLIGHT, (id) =>
      listUserEnrollments(tenant, id),
    )
    list = lists.flat()
  }
  return list.filter(
    (e) =>
      (!s.courseId || e.courseId === s.courseId) &&
      (!s.userId || e.userId === s.userId) &&
      (!members || members.has(e.userId)),
  )
}

/**
 * A report's page from the narrowest read that answers it, as rows with their course titles: one
 * course named alone (no `filtered`) reads its own keys, a course, user or group the scope's
 * enrollments that `match` in `order`, else the tenant-wide read.
 */
async function reportPage<R>(
  tenant: TenantContext,
  q: Scope & PageRequest,
  row: (e: Enrollment, courseTitle: string) => R,
  plan: {
    readonly filtered: boolean
    readonly course: (courseId: string) => Promise<Listed<Enrollment>>
    readonly match: (e: Enrollment) => boolean
    readonly order: (a: Enrollment, b: Enrollment) => number
    readonly tenantWide: () => Promise<Listed<Enrollment>>
  },
): Promise<Listed<R>> {
  const courseOnly = !q.userId && !q.groupId && !plan.filtered ? q.courseId : undefined
  const scoped = courseOnly ? undefined : await scopedEnrollments(tenant, q)
  const listed = courseOnly
    ? await plan.course(courseOnly)
    : scoped
      ? pageOf(scoped.filter(plan.match).sort(plan.order), q)
      : await plan.tenantWide()
  const names = await titles(tenant, listed.items)
  return { items: listed.items.map((e) => row(e, names.get(e.courseId) ?? '')), total: listed.total }
}

export interface CompletionsQuery extends Scope, PageRequest {
  readonly completedAfter?: string
  readonly completedBefore?: string
  readonly passFail?: 'pass' | 'fail'
  readonly sortBy: 'completed_at' | 'score'
  readonly order: 'asc' | 'desc'
}

const byCompletion = (order: 'asc' | 'desc') =>
  byKey<Enrollment>((e) => `${e.completedAt ?? ''}#${e.id}`, order)
const byScore = (order: 'asc' | 'desc') => (a: Enrollment, b: Enrollment) =>
  order === 'asc' ? compareScore(a, b) : compareScore(b, a)

export async function completionsReport(
  tenant: TenantContext,
  q: CompletionsQuery,
): Promise<Listed<CompletionRow>> {
  const range = { after: q.completedAfter, before: q.completedBefore, passFail: q.passFail, order: q.order }
  const filtered = !!(range.after || range.before || range.passFail)
  const { offset, limit } = q
  return reportPage(tenant, q, completionRow, {
    // By completion time, one course has a page of its own keys (decision 0025).
    filtered: filtered || q.sortBy !== 'completed_at',
    course: (id) => {
      const page = pageByKey(courseCompletionsParams(tenant, id, q.order), offset, limit)
      return withTallyTotal(tenant, id, 'completions', page)
    },
    match: (e) =>
      between(e.completedAt, range.after, range.before) && (!q.passFail || e.passFail === q.passFail),
    order: q.sortBy === 'score' ? byScore(q.order) : byCompletion(q.order),
    tenantWide: async () => {
      if (q.sortBy === 'score' && (range.after || range.before)) {
        return pageOf((await allCompletions(tenant, range)).sort(byScore(q.order)), q)
      }
      // The total is the counter's, or with a filter the histogram's (0026).
      const counted: Promise<{ total: number; share?: number }> = filtered
        ? completionsRangeTotal(tenant, range)
        : tenantEnrollmentCounters(tenant).then((c) => ({ total: c.completions }))
      // rpt3 is in score order: the page is a Limit read.
      if (q.sortBy === 'score') {
        return pageOfRange(completionsByScoreParams(tenant, range), offset, limit, (await counted).total)
      }
      const params = completionsRangeParams(tenant, range)
      if (range.passFail) {
        // The histogram's share of pass (or fail) sizes the filtered page's read: read it first.
        const { total, share } = await counted
        return pageOfRange(params, offset, limit, total, share)
      }
      return pageOfRange(
        params,
        offset,
        limit,
        counted.then((c) => c.total),
      )
    },
  })
}

export interface EnrollmentsQuery extends Scope, PageRequest {
  readonly status?: EnrollmentStatus
  readonly enrolledAfter?: string
  readonly enrolledBefore?: string
  readonly order: 'asc' | 'desc'
}

export async function enrollmentsReport(
  tenant: TenantContext,
  q: EnrollmentsQuery,
): Promise<Listed<EnrollmentRow>> {
  const range = { after: q.enrolledAfter, before: q.enrolledBefore, status: q.status, order: q.order }
  const { offset, limit } = q
  return reportPage(tenant, q, enrollmentRow, {
    filtered: !!(range.after || range.before || q.status),
    // One course: a page of its own index, its total the course's tally (0 spares counting the range).
    course: (id) => {
      const page = pageOfRange(courseEnrollmentsPageParams(tenant, id, q.order), offset, limit, 0)
      return withTallyTotal(
        tenant,
        id,
        'enrollments',
        page.then((p) => p.items),
      )
    },
    match: (e) => between(e.enrolledAt, range.after, range.before) && (!q.status || e.status === q.status),
    order: byKey((e) => `${e.enrolledAt}#${e.id}`, q.order),
    tenantWide: () => {
      const total =
        !range.after && !range.before
          ? tenantEnrollmentCounters(tenant).then((c) => (q.status ? c.byStatus[q.status] : c.total))
          : enrolledRangeTotal(tenant, range).then((r) => r.total)
      // A status pages its own keys in enrollment order (rpt7); without one, gsi1 is that order.
      return q.status
        ? pageOfStatusEnrollments(tenant, { ...range, status: q.status }, offset, limit, total)
        : pageOfRange(enrolledRangeParams(tenant, range), offset, limit, total)
    },
  })
}

export interface ComplianceQuery extends Scope, PageRequest {
  readonly status?: ComplianceStatus
  readonly asOf?: string
}

export async function complianceReport(
  tenant: TenantContext,
  q: ComplianceQuery,
  now = nowIso(),
): Promise<Listed<ComplianceRow>> {
  const asOf = q.asOf ?? now
  return reportPage(tenant, q, (e, title) => complianceRow(e, title, asOf), {
    // One course and no status: every assignment of it, in rpt1's order, whatever as_of (0025).
    filtered: !!q.status,
    course: (id) => pageOfCourseAssignments(tenant, id, q.offset, q.limit),
    match: (e) => isAssignment(e.status) && (!q.status || complianceStatus(e, asOf) === q.status),
    order: byKey((e) => `${assignmentSortValue(e)}#${e.id}`, 'asc'),
    tenantWide: async () => {
      if (q.status && asOf >= now) {
        // No completion is later than asOf: the status is one key range, its total the histogram's.
        const [histogram, page] = await Promise.all([
          readExpiryHistogram(tenant, asOf),
          pageOfRange(currentStatusParams(tenant, q.status, asOf), q.offset, q.limit, 0),
        ])
        return { items: page.items, total: complianceTotals(histogram, asOf)[q.status] }
      }
      // A past asOf: completions made after it count as none, which the histogram cannot tell.
      if (q.status) return pageOf(await assignmentsInStatus(tenant, q.status, asOf), q)
      const [items, counters] = await Promise.all([
        pageOfAssignments(tenant, q.offset, q.limit),
        tenantEnrollmentCounters(tenant),
      ])
      const { active, completed, expired } = counters.byStatus
      return { items, total: active + completed + expired }
    },
  })
}

export interface UserActivityQuery extends PageRequest {
  readonly groupId?: string
  readonly activeAfter?: string
  readonly activeBefore?: string
  readonly includeInactive: boolean
  readonly userType?: UserType
}

/**
 * A group up to this size has its members read by key (half an RCU each); a larger one, like the
 * tenant, reads every user's act1 entry, or every user of the type's (about 140 bytes each: ~29
 * users per RCU).
 */
const MEMBERS_READ_BY_KEY = 200

async function usersInScope(
  tenant: TenantContext,
  members: ReadonlySet<string> | undefined,
  type: UserType | undefined,
): Promise<UserActivityEntry[]> {
  if (members && members.size <= MEMBERS_READ_BY_KEY) {
    const users = members.size > 0 ? await batchGetUsers(tenant, [...members]) : []
    return users.map((u) => ({ id: u.id, lastLoginAt: u.lastLoginAt, userType: u.userType }))
  }
  const all = type ? await usersOfType(tenant, type) : await allUsersActivity(tenant)
  return members ? all.filter((u) => members.has(u.id)) : all
}

/**
 * The aggregate (decision 0024) answers a page of this size at most: each row is one read of the
 * user's own entries, so an export (every row) reads the period's entries whole instead.
 */
const LATEST_PAGE_MAX = 200

/**
 * The active users (of `user_type`, if given) from the users' latest activity: when no such user's
 * latest is after the period's end, the active ones are exactly those whose latest is at or after
 * its start. Their count is the histogram's days after the start's day (the type's counts) plus a
 * count of its own; the page is a Limit read of the index (kept by type), each row its user's own
 * entries (act2). Undefined when the period ends before some user's latest: the exact reads
 * answer then. The type's share of the users sizes the reads kept by type.
 */
async function activityFromLatest(
  tenant: TenantContext,
  q: UserActivityQuery,
  period: Period,
  share: number,
): Promise<Listed<UserActivityRow> | undefined> {
  const start = Date.parse(period.start)
  const want = q.offset + q.limit
  const type = q.userType
  const [top, days, ofStartDay] = await Promise.all([
    type === undefined ? usersByLatest(tenant, want) : usersOfTypeByLatest(tenant, type, want, start, share),
    latestDays(tenant, dayOf(start).slice(0, 7), type),
    countLatestBetween(tenant, start, nextDayStart(start) - 1, type),
  ])
  if (top.length > 0 && (top[0]?.latest ?? 0) > Date.parse(period.end)) return undefined
  const page = top.filter((u) => u.latest >= start).slice(q.offset)
  const rows = await mapLimit(page, MEMBER_QUERIES_IN_FLIGHT, async (u) => {
    const own = await userActivitySince(tenant, u.userId, start)
    return activityRow(u.userId, own.lastLoginAt, own.enrollments, period)
  })
  return { items: rows, total: activeSince(days, start, ofStartDay) }
}

/**
 * Rows ordered by most recent activity in the period (byRecentActivity). Without a group a page
 * is read from the latest-activity aggregate (activityFromLatest, decision 0024) when it can be;
 * otherwise from act1 (activity-index.ts, decision 0022): the enrollments last active since the
 * period's start, and the users who signed in inside it. Without include_inactive and user_type their ids decide who is active, and only
 * the page's other users are read (for their last sign-in). With include_inactive every user of
 * the tenant (or group) has a row; with user_type the candidates are that type's users: both read
 * those users' entries (or a small group's items).
 */
export async function userActivityReport(
  tenant: TenantContext,
  q: UserActivityQuery,
  now = nowIso(),
): Promise<Listed<UserActivityRow>> {
  const period = activityPeriod(now, q.activeAfter, q.activeBefore)
  const everyone = q.includeInactive || q.userType !== undefined
  if (!q.groupId && q.limit <= LATEST_PAGE_MAX) {
    // The user counters: the type's share of the users, and every user for include_inactive.
    const counters = q.userType !== undefined || q.includeInactive ? await getUserCounters(tenant) : undefined
    const ofType = (c: UserCounters) =>
      q.userType === undefined ? c.total : (c.byAttribute[`type_${q.userType}`] ?? 0)
    const share = counters && counters.total > 0 ? ofType(counters) / counters.total : 1
    const listed = await activityFromLatest(tenant, q, period, share)
    if (listed && !q.includeInactive) return listed
    // With include_inactive the active users come first: a page among them is the same page;
    // the total is every user of the tenant (or of the type). A page past them takes the exact reads.
    if (listed && counters && q.offset + q.limit <= listed.total)
      return { items: listed.items, total: ofType(counters) }
  }
  const members = q.groupId ? ((await memberUserIds(tenant, q.groupId)) ?? new Set<string>()) : undefined
  if (members?.size === 0) return { items: [], total: 0 }
  const [recent, users] = await Promise.all([
    enrollmentsActiveSince(tenant, period.start, Date.parse(now) > Date.parse(period.end) ? now : period.end),
    everyone ? usersInScope(tenant, members, q.userType) : usersSignedInDuring(tenant, period),
  ])
  const byUser = new Map<string, EnrollmentActivity[]>()
  for (const e of recent) {
    const list = byUser.get(e.userId)
    if (list) list.push(e)
    else byUser.set(e.userId, [e])
  }
  if (!everyone) {
    // Who is active follows from the ids: only the page's users who did not sign in are read.
    const known = new Map(users.map((u) => [u.id, u.lastLoginAt]))
    const ids = [...activeUserIds(users, recent, period)].filter((id) => !members || members.has(id))
    const ordered = ids
      .map((id) => ({ id, latest: latestInPeriod(known.get(id) ?? null, byUser.get(id) ?? [], period) }))
      .sort(byRecentActivity)
    const page = pageOf(ordered, q)
    const missing = page.items.filter((u) => !known.has(u.id)).map((u) => u.id)
    for (const u of missing.length > 0 ? await batchGetUsers(tenant, missing) : [])
      known.set(u.id, u.lastLoginAt)
    return {
      items: page.items.map((u) =>
        activityRow(u.id, known.get(u.id) ?? null, byUser.get(u.id) ?? [], period),
      ),
      total: page.total,
    }
  }
  const rows = users
    .filter((u) => !q.userType || u.userType === q.userType)
    .map((u) => ({
      id: u.id,
      latest: latestInPeriod(u.lastLoginAt, byUser.get(u.id) ?? [], period),
      row: activityRow(u.id, u.lastLoginAt, byUser.get(u.id) ?? [], period),
    }))
    .filter((r) => q.includeInactive || isActive(r.row))
  const page = pageOf(rows.sort(byRecentActivity), q)
  return { items: page.items.map((r) => r.row), total: page.total }
}

export interface CoursePerformanceQuery extends PageRequest {
  readonly courseId?: string
  readonly category?: string
  readonly periodStart?: string
  readonly periodEnd?: string
}

/**
 * A Query reads about 40 small tallies per half RCU, a BatchGetItem half an RCU per tally: all of
 * the tenant's tallies in one Query cost less than the page's by key while the tenant has fewer
 * than this many courses per row of the page (margin kept for drafts and larger tallies).
 */
const TALLY_QUERY_COURSES_PER_ROW = 20

async function pageTallies(tenant: TenantContext, courses: number, ids: readonly string[]) {
  if (ids.length === 0) return new Map<string, CourseTally>()
  return courses <= TALLY_QUERY_COURSES_PER_ROW * ids.length
    ? allCourseTallies(tenant)
    : getCourseTallies(tenant, ids)
}

/**
 * One row per published or archived course, by title. Without a period each course's tally is
 * one stored item; a period sums the course's enrollments created inside it (both ends included).
 */
export async function coursePerformanceReport(
  tenant: TenantContext,
  q: CoursePerformanceQuery,
): Promise<Listed<CoursePerformanceRow>> {
  if (q.periodStart && q.periodEnd && q.periodStart > q.periodEnd) {
    throw new ValidationError('period_start', 'period_start must not be after period_end')
  }
  let courses: Course[]
  const category = q.category ? await getCategoryByName(tenant, q.category) : undefined
  if (q.category && !category) return { items: [], total: 0 }
  if (q.courseId) {
    const c = await getCourse(tenant, q.courseId)
    courses = c && c.status !== 'draft' && (!category || c.categoryId === category.id) ? [c] : []
  } else {
    courses = await reportableCourses(tenant, category?.id)
  }
  const page = pageOf(courses, q)
  // A period: its whole days from the course's day tallies, its partial days read exactly (rpt4).
  const parts = periodParts(q.periodStart, q.periodEnd)
  const tallies =
    q.periodStart || q.periodEnd
      ? new Map(
          await mapLimit(page.items, MEMBER_QUERIES_IN_FLIGHT, async (c) => {
            const sums = await Promise.all([
              parts.days ? sumCourseDayTallies(tenant, c.id, parts.days.first, parts.days.last) : emptyTally,
              ...parts.edges.map((e) => tallyCreatedBetween(tenant, c.id, e.from, e.to)),
            ])
            return [c.id, sums.reduce((t, d) => addTallies(t, d), emptyTally)] as const
          }),
        )
      : await pageTallies(
          tenant,
          courses.length,
          page.items.map((c) => c.id),
        )
  return {
    items: page.items.map((c) => performanceRow(c, tallies.get(c.id) ?? sumTallies([]))),
    total: page.total,
  }
}
