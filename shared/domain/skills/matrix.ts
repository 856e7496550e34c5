/** The team matrix's rules: its query, its columns and one person's cells. Pure. */
import * as v from 'valibot'
import { text, textRules } from '../text-rules.ts'
import { requirementsOf, type JobRole } from './job-role.ts'
import { currentLevel, isExpiring, skillLocales, type Skill, type SkillLevel } from './skill.ts'
import { skillStatus, skillStatuses, type SkillStatus } from './status.ts'
import type { HeldLevel } from './summary.ts'

export const MAX_MATRIX_COLUMNS = 40
/** A status filter looks at the first this many people only (`population_truncated`). */
export const MATRIX_STATUS_SCAN = 10_000

/** A list parameter: comma-separated, or repeated (the gateway joins repeats with commas). */
const split = (s: string): string[] => [
  ...new Set(
    s
      .split(',')
      .map((x) => x.trim())
      .filter((x) => x !== ''),
  ),
]

const list = <S extends v.GenericSchema<string, string>>(item: S, max = Number.MAX_SAFE_INTEGER) =>
  v.pipe(v.string(), v.transform(split), v.array(item), v.maxLength(max, `must hold at most ${max} values`))

const Id = v.pipe(v.string(), v.uuid('must be a list of UUIDs'))

export const MatrixQuery = v.object({
  group_id: v.optional(list(Id)),
  job_role_id: v.optional(list(Id)),
  domain_id: v.optional(list(Id)),
  skill_id: v.optional(list(Id, MAX_MATRIX_COLUMNS)),
  status: v.optional(list(v.picklist(skillStatuses, `must be a list of ${skillStatuses.join(', ')}`))),
  search: v.optional(text(textRules.searchQuery)),
  locale: v.optional(v.picklist(skillLocales, `must be one of ${skillLocales.join(', ')}`), 'en'),
})
export type MatrixQuery = v.InferOutput<typeof MatrixQuery>

/**
 * The skills the query matches, before the 40-column cut: the listed ones (`skill_id`), else the
 * skills the filtered roles require, else every skill; then only those in the listed domains.
 * Active skills only, ordered by name.
 */
export function matchingColumns(
  q: Pick<MatrixQuery, 'skill_id' | 'job_role_id' | 'domain_id'>,
  skills: readonly Skill[],
  roles: readonly JobRole[],
  nameOf: (s: Skill) => string,
): Skill[] {
  const active = skills.filter((s) => s.isActive)
  let chosen: Skill[]
  if (q.skill_id) {
    const wanted = new Set(q.skill_id)
    chosen = active.filter((s) => wanted.has(s.id))
  } else if (q.job_role_id) {
    const wanted = new Set(q.job_role_id)
    const required = new Set(
      roles
        .filter((r) => wanted.has(r.id) && r.isActive)
        .flatMap((r) => r.requirements.map((x) => x.skillId)),
    )
    chosen = active.filter((s) => required.has(s.id))
  } else {
    chosen = active
  }
  if (q.domain_id) {
    const domains = new Set(q.domain_id)
    chosen = chosen.filter((s) => domains.has(s.domainId))
  }
  return chosen.sort((a, b) => nameOf(a).localeCompare(nameOf(b)) || (a.id < b.id ? -1 : 1))
}

/**
 * Where the matrix's people come from. `page`: no filter on people, so the page is read from the
 * users-by-last-name index and `total` from the active-user counter (50 people read, not the
 * tenant). `listed`: a group or role filter names the candidates (members, holders), read by id.
 * `everyone`: a name search or a status filter must look at every active person.
 */
export type PopulationPlan = 'page' | 'listed' | 'everyone'

export function populationPlan(
  q: Pick<MatrixQuery, 'group_id' | 'job_role_id' | 'search' | 'status'>,
): PopulationPlan {
  if (q.group_id || q.job_role_id) return 'listed'
  if (q.search !== undefined || q.status) return 'everyone'
  return 'page'
}

/**
 * The rows' order: last name ignoring case, then id, exactly the order of the users-by-last-name
 * index (`<last name lower-cased>#<id>`), so a page read from the index and a page sorted here
 * agree.
 */
export function byLastName(
  a: { readonly lastName: string; readonly id: string },
  b: { readonly lastName: string; readonly id: string },
): number {
  const x = `${a.lastName.toLowerCase()}#${a.id}`
  const y = `${b.lastName.toLowerCase()}#${b.id}`
  return x < y ? -1 : x > y ? 1 : 0
}

/** The people a status filter looks at: the first `MATRIX_STATUS_SCAN`, and whether more were left. */
export function statusScanWindow<T>(people: readonly T[], limit = MATRIX_STATUS_SCAN) {
  return { scanned: people.slice(0, limit), truncated: people.length > limit }
}

export interface MatrixCell {
  readonly skillId: string
  /** null when the skill is neither required of nor held by the person. */
  readonly status: SkillStatus | null
  readonly requiredLevel: SkillLevel | null
  readonly attainedLevel: SkillLevel | null
  readonly validUntil: string | null
  readonly expiring: boolean
  readonly pendingClaimLevel: SkillLevel | null
}

/** One person's cells, in column order. */
export function cellsOf(
  columns: readonly Skill[],
  personRoles: readonly JobRole[],
  held: ReadonlyMap<string, HeldLevel>,
  isVisible: (skillId: string) => boolean,
  now: string,
): MatrixCell[] {
  const required = requirementsOf(personRoles, isVisible)
  return columns.map((c) => {
    const h = held.get(c.id)
    const req = required.get(c.id)?.level ?? null
    return {
      skillId: c.id,
      status: skillStatus(req, currentLevel(h, now)) ?? null,
      requiredLevel: req,
      attainedLevel: h?.level ?? null,
      validUntil: h?.validUntil ?? null,
      expiring: isExpiring(h?.validUntil ?? null, now),
      pendingClaimLevel: h?.pendingClaimLevel ?? null,
    }
  })
}
