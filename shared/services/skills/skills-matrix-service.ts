/**
 * The team matrix: people (rows) by skills (columns), each cell the person's status on the skill.
 * Needs the skills-planning feature (Growth and up) and the organization's switch; every pull is
 * written to the audit log (filters and row counts, never content).
 */
import { mapLimit } from '../../concurrency.ts'
import { FeatureSwitchedOffError } from '../../domain/errors.ts'
import { requireCapability } from '../../domain/plans/entitlements.ts'
import type { JobRole } from '../../domain/skills/job-role.ts'
import {
  cellsOf,
  matchingColumns,
  MAX_MATRIX_COLUMNS,
  byLastName,
  populationPlan,
  statusScanWindow,
  type MatrixCell,
  type MatrixQuery,
} from '../../domain/skills/matrix.ts'
import { localName, type Skill } from '../../domain/skills/skill.ts'
import type { HeldLevel, SkillSummary } from '../../domain/skills/summary.ts'
import type { Tenant, TenantContext } from '../../domain/tenants/tenant.ts'
import type { User } from '../../domain/users/user.ts'
import { writeAudit } from '../../store/tenants/audit-store.ts'
import { holdersOfRole, holdingsOfUser, listJobRoles } from '../../store/skills/job-roles-store.ts'
import { allSkillSummaries, skillSummariesOf } from '../../store/skills/skill-summaries.ts'
import { heldSkillsOfUser, listDomains, listSkills } from '../../store/skills/skills-store.ts'
import { listUsers } from '../../store/users/users-list.ts'
import { allUsersInSegments } from '../../store/skills/skills-scan.ts'
import { batchGetUsers } from '../../store/users/users-store.ts'
import { memberUserIds } from '../groups/groups-service.ts'

const nowIso = () => new Date().toISOString()

export interface MatrixRow {
  readonly user: Pick<User, 'id' | 'firstName' | 'lastName'>
  readonly jobRoles: string[]
  readonly cells: MatrixCell[]
}

export interface MatrixColumn {
  readonly skillId: string
  readonly name: string
  readonly domain: { readonly id: string; readonly name: string }
  readonly isCritical: boolean
}

export interface MatrixResult {
  readonly rows: MatrixRow[]
  readonly total: number
  readonly columns: MatrixColumn[]
  readonly columnsTruncated: boolean
  readonly availableColumns: number
  readonly hasRequirements: boolean
  readonly populationTruncated: boolean
}

/** The entitlement, then the organization's switch. */
export function requireSkillsPlanning(tenant: Pick<Tenant, 'plan' | 'skillsPlanning'>): void {
  requireCapability(tenant.plan, 'skills_planning')
  if (!tenant.skillsPlanning) {
    throw new FeatureSwitchedOffError(
      'SKILLS_PLANNING_OFF',
      'Skills planning is switched off for this organization',
    )
  }
}

const isLive = (u: User) => u.isActive && u.erasedAt === undefined

const union = (sets: readonly (ReadonlySet<string> | readonly string[] | undefined)[]) =>
  new Set(sets.flatMap((s) => (s ? [...s] : [])))

/**
 * Every active person the group, role and name filters keep, ordered by last name. With a group or
 * role filter only the members and holders are read (by id); otherwise every user of the tenant.
 */
async function everyoneMatching(tenant: TenantContext, q: MatrixQuery): Promise<User[]> {
  let people: User[]
  if (q.group_id || q.job_role_id) {
    const members = q.group_id
      ? union(await Promise.all(q.group_id.map((g) => memberUserIds(tenant, g))))
      : undefined
    const holders = q.job_role_id
      ? union(await Promise.all(q.job_role_id.map((r) => holdersOfRole(tenant, r))))
      : undefined
    const ids = [...(members ?? holders ?? [])].filter((id) => !holders || holders.has(id))
    people = await batchGetUsers(tenant, ids)
  } else {
    people = await allUsersInSegments(tenant)
  }
  people = people.filter(isLive)
  if (q.search) {
    const needle = q.search.toLowerCase()
    people = people.filter(
      (u) => u.firstName.toLowerCase().includes(needle) || u.lastName.toLowerCase().includes(needle),
    )
  }
  return people.sort(byLastName)
}

/**
 * The page's people and the population's size. Without a filter on people the page comes from the
 * users-by-last-name index (offset + limit entries) and the size from the active-user counter.
 */
async function populationPage(
  tenant: TenantContext,
  q: MatrixQuery,
  page: { readonly offset: number; readonly limit: number },
): Promise<{ people: User[]; total: number }> {
  if (populationPlan(q) === 'page') {
    const { items, total } = await listUsers(tenant, {
      isActive: true,
      sortBy: 'last_name',
      order: 'asc',
      offset: page.offset,
      limit: page.limit,
    })
    return { people: items.filter(isLive), total }
  }
  const everyone = await everyoneMatching(tenant, q)
  return { people: everyone.slice(page.offset, page.offset + page.limit), total: everyone.length }
}

type PersonData = Pick<SkillSummary, 'roleIds' | 'held'>

const noSkills: PersonData = { roleIds: [], held: [] }

/** Up to this many people, a status filter reads their summaries by key rather than the tenant's. */
const SUMMARIES_BY_KEY_MAX = 500

/**
 * The skills summaries of the people a status filter looks at: by key when a group or role filter
 * named few of them, else every summary of the tenant (16 ranges side by side).
 */
async function summariesFor(
  tenant: TenantContext,
  q: MatrixQuery,
  people: Promise<readonly User[]>,
): Promise<Map<string, SkillSummary>> {
  const listed = populationPlan(q) === 'listed' ? await people : undefined
  const summaries =
    listed && listed.length <= SUMMARIES_BY_KEY_MAX
      ? await skillSummariesOf(
          tenant,
          listed.map((u) => u.id),
        )
      : await allSkillSummaries(tenant)
  return new Map(summaries.map((s) => [s.userId, s]))
}

export async function teamMatrix(
  tenant: Tenant,
  q: MatrixQuery,
  page: { readonly offset: number; readonly limit: number },
  actor: string,
  now = nowIso(),
): Promise<MatrixResult> {
  requireSkillsPlanning(tenant)
  const [skills, domains, roles] = await Promise.all([
    listSkills(tenant),
    listDomains(tenant),
    listJobRoles(tenant),
  ])
  const nameOf = (s: Skill) => localName(s, q.locale)
  const domainById = new Map(domains.map((d) => [d.id, d]))
  const skillById = new Map(skills.map((s) => [s.id, s]))
  const visible = (id: string) => skillById.get(id)?.isActive === true
  const roleById = new Map(roles.map((r) => [r.id, r]))
  const matched = matchingColumns(q, skills, roles, nameOf)
  const columns = matched.slice(0, MAX_MATRIX_COLUMNS)

  const rowOf = (user: User, data: PersonData): MatrixRow => {
    const personRoles = data.roleIds.flatMap((id) => roleById.get(id) ?? []).filter((r) => r.isActive)
    const held = new Map<string, HeldLevel>(data.held.map((h) => [h.skillId, h]))
    return {
      user: { id: user.id, firstName: user.firstName, lastName: user.lastName },
      jobRoles: personRoles.map((r) => r.name).sort((a, b) => a.localeCompare(b)),
      cells: cellsOf(columns, personRoles, held, visible, now),
    }
  }

  let rows: MatrixRow[]
  let total: number
  let populationTruncated = false
  if (q.status) {
    // The status of a row is only known once its cells are: each person's cells come from their
    // skills summary (roles and levels held; requirements joined here from the roles), and the
    // rows with a wanted status are kept, over the first 10,000 people.
    const population = everyoneMatching(tenant, q)
    const [people, summaries] = await Promise.all([population, summariesFor(tenant, q, population)])
    const { scanned, truncated } = statusScanWindow(people)
    populationTruncated = truncated
    const wanted = new Set(q.status)
    const kept = scanned
      .map((u) => rowOf(u, summaries.get(u.id) ?? noSkills))
      .filter((row) => row.cells.some((c) => c.status !== null && wanted.has(c.status)))
    total = kept.length
    rows = kept.slice(page.offset, page.offset + page.limit)
  } else {
    const found = await populationPage(tenant, q, page)
    total = found.total
    rows = await mapLimit(found.people, 25, async (u) => {
      const [holdings, held] = await Promise.all([
        holdingsOfUser(tenant, u.id),
        heldSkillsOfUser(tenant, u.id),
      ])
      return rowOf(u, { roleIds: holdings.map((h) => h.jobRoleId), held })
    })
  }

  const columnIds = new Set(columns.map((c) => c.id))
  const consideredRoles: JobRole[] = q.job_role_id
    ? q.job_role_id.flatMap((id) => roleById.get(id) ?? [])
    : roles
  const hasRequirements = consideredRoles.some(
    (r) => r.isActive && r.requirements.some((x) => columnIds.has(x.skillId)),
  )

  await writeAudit(tenant, {
    action: 'skills.matrix.viewed',
    actor,
    details: {
      filters: {
        group_id: q.group_id ?? null,
        job_role_id: q.job_role_id ?? null,
        domain_id: q.domain_id ?? null,
        skill_id: q.skill_id ?? null,
        status: q.status ?? null,
        search: q.search === undefined ? null : true,
        locale: q.locale,
        page_offset: page.offset,
        per_page: page.limit,
      },
      row_count: rows.length,
      total,
    },
    createdAt: now,
  })

  return {
    rows,
    total,
    columns: columns.map((s) => {
      const d = domainById.get(s.domainId)
      return {
        skillId: s.id,
        name: nameOf(s),
        domain: { id: s.domainId, name: d ? localName(d, q.locale) : '' },
        isCritical: s.isCritical,
      }
    }),
    columnsTruncated: matched.length > MAX_MATRIX_COLUMNS,
    availableColumns: matched.length,
    hasRequirements,
    populationTruncated,
  }
}
