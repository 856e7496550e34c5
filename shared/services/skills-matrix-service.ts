/**
 * The team matrix: people (rows) by skills (columns), each cell the person's status on the skill.
 * Needs the skills-planning feature (Growth and up) and the organization's switch; every pull is
 * written to the audit log (filters and row counts, never content).
 */
import { mapLimit } from '../concurrency.ts'
import { FeatureSwitchedOffError } from '../domain/errors.ts'
import { requireCapability } from '../domain/plans/entitlements.ts'
import type { JobRole, RoleHolding } from '../domain/skills/job-role.ts'
import {
  cellsOf,
  matchingColumns,
  MAX_MATRIX_COLUMNS,
  statusScanWindow,
  type MatrixCell,
  type MatrixQuery,
} from '../domain/skills/matrix.ts'
import { localName, type HeldSkill, type Skill } from '../domain/skills/skill.ts'
import type { Tenant, TenantContext } from '../domain/tenants/tenant.ts'
import type { User } from '../domain/users/user.ts'
import { writeAudit } from '../store/audit-store.ts'
import { allHoldings, holdersOfRole, holdingsOfUser, listJobRoles } from '../store/job-roles-store.ts'
import { allHeldSkills, heldSkillsOfUser, listDomains, listSkills } from '../store/skills-store.ts'
import { listAllUsers } from '../store/users-store.ts'

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

const byName = (a: User, b: User) =>
  a.lastName.localeCompare(b.lastName) || a.firstName.localeCompare(b.firstName) || (a.id < b.id ? -1 : 1)

/** Active people matching the group, role and name filters, ordered by last then first name. */
async function population(tenant: TenantContext, q: MatrixQuery): Promise<User[]> {
  let people = (await listAllUsers(tenant)).filter((u) => u.isActive && u.erasedAt === undefined)
  if (q.group_id) {
    const groups = new Set(q.group_id)
    people = people.filter((u) => u.groupIds.some((g) => groups.has(g)))
  }
  if (q.job_role_id) {
    const holders = new Set((await Promise.all(q.job_role_id.map((r) => holdersOfRole(tenant, r)))).flat())
    people = people.filter((u) => holders.has(u.id))
  }
  if (q.search) {
    const needle = q.search.toLowerCase()
    people = people.filter(
      (u) => u.firstName.toLowerCase().includes(needle) || u.lastName.toLowerCase().includes(needle),
    )
  }
  return people.sort(byName)
}

interface PersonData {
  readonly holdings: readonly RoleHolding[]
  readonly held: readonly HeldSkill[]
}

function groupBy<T>(items: readonly T[], key: (t: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>()
  for (const item of items) {
    const k = key(item)
    const list = out.get(k)
    if (list) list.push(item)
    else out.set(k, [item])
  }
  return out
}

export async function teamMatrix(
  tenant: Tenant,
  q: MatrixQuery,
  page: { readonly offset: number; readonly limit: number },
  actor: string,
  now = nowIso(),
): Promise<MatrixResult> {
  requireSkillsPlanning(tenant)
  const [skills, domains, roles, people] = await Promise.all([
    listSkills(tenant),
    listDomains(tenant),
    listJobRoles(tenant),
    population(tenant, q),
  ])
  const nameOf = (s: Skill) => localName(s, q.locale)
  const domainById = new Map(domains.map((d) => [d.id, d]))
  const skillById = new Map(skills.map((s) => [s.id, s]))
  const visible = (id: string) => skillById.get(id)?.isActive === true
  const roleById = new Map(roles.map((r) => [r.id, r]))
  const matched = matchingColumns(q, skills, roles, nameOf)
  const columns = matched.slice(0, MAX_MATRIX_COLUMNS)

  const rowOf = (user: User, data: PersonData): MatrixRow => {
    const personRoles = data.holdings
      .flatMap((h) => roleById.get(h.jobRoleId) ?? [])
      .filter((r) => r.isActive)
    const held = new Map(data.held.map((h) => [h.skillId, h]))
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
    // The status of a row is only known once its cells are: read every holding and held skill of
    // the tenant in two Queries and keep the rows with a wanted status, over the first 10,000.
    const { scanned, truncated } = statusScanWindow(people)
    populationTruncated = truncated
    const [holdings, held] = await Promise.all([allHoldings(tenant), allHeldSkills(tenant)])
    const holdingsBy = groupBy(holdings, (h) => h.userId)
    const heldBy = groupBy(held, (h) => h.userId)
    const wanted = new Set(q.status)
    const kept = scanned
      .map((u) => rowOf(u, { holdings: holdingsBy.get(u.id) ?? [], held: heldBy.get(u.id) ?? [] }))
      .filter((row) => row.cells.some((c) => c.status !== null && wanted.has(c.status)))
    total = kept.length
    rows = kept.slice(page.offset, page.offset + page.limit)
  } else {
    total = people.length
    rows = await mapLimit(people.slice(page.offset, page.offset + page.limit), 10, async (u) =>
      rowOf(u, {
        holdings: await holdingsOfUser(tenant, u.id),
        held: await heldSkillsOfUser(tenant, u.id),
      }),
    )
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
