/** Job roles: a named set of required skill levels that people hold from one or more sources. */
import * as v from 'valibot'
import { text, textRules } from '../text-rules.ts'
import { QueryBoolean, Uuid } from '../validation.ts'
import { levelRank, SkillLevelSchema, type SkillLevel } from './skill.ts'

export const MAX_REQUIRED_SKILLS = 100
export const MAX_JOB_ROLE_IDS_PER_PUT = 50

/** Where a person's role comes from: the user page, a profile field, or the CSV import (and PUT). */
export const roleSources = ['manual', 'profile', 'import'] as const
export type RoleSource = (typeof roleSources)[number]

export interface Requirement {
  readonly skillId: string
  readonly requiredLevel: SkillLevel
  /** When the level was last set. */
  readonly reviewedAt: string
}

export interface JobRole {
  readonly id: string
  readonly name: string
  readonly description: string | null
  /** Set for roles managed by imported content. */
  readonly key: string | null
  readonly isActive: boolean
  /** Every requirement, those on deactivated skills included (hidden by the API, kept by PATCH). */
  readonly requirements: readonly Requirement[]
  readonly holderCount: number
  readonly createdAt: string
  readonly updatedAt: string
}

/** A person's hold on one role: every source it comes from (never empty while held). */
export interface RoleHolding {
  readonly userId: string
  readonly jobRoleId: string
  readonly sources: readonly RoleSource[]
  readonly version: number
}

const Name = text(textRules.jobRoleName, { trimmed: true, required: true })
const Description = v.nullable(text(textRules.jobRoleDescription))

const RequiredSkills = v.pipe(
  v.array(v.object({ skill_id: Uuid, required_level: SkillLevelSchema })),
  v.maxLength(MAX_REQUIRED_SKILLS, `must hold at most ${MAX_REQUIRED_SKILLS} skills`),
  v.check((list) => new Set(list.map((r) => r.skill_id)).size === list.length, 'must name each skill once'),
)

export const CreateJobRoleInput = v.object({
  name: Name,
  description: v.optional(Description),
  required_skills: v.optional(RequiredSkills),
})
export type CreateJobRoleInput = v.InferOutput<typeof CreateJobRoleInput>

export const UpdateJobRoleInput = v.object({
  ...v.partial(CreateJobRoleInput).entries,
  is_active: v.optional(v.boolean('must be a boolean')),
})
export type UpdateJobRoleInput = v.InferOutput<typeof UpdateJobRoleInput>

export const JobRoleListQuery = v.object({
  search: v.optional(text(textRules.searchQuery)),
  include_inactive: v.optional(QueryBoolean),
})

export const PutUserJobRolesInput = v.object({
  job_role_ids: v.pipe(
    v.array(Uuid),
    v.maxLength(MAX_JOB_ROLE_IDS_PER_PUT, `must hold at most ${MAX_JOB_ROLE_IDS_PER_PUT} ids`),
  ),
})

/**
 * A PATCH's requirements: the listed ones (keeping `reviewed_at` where the level is unchanged) plus
 * every requirement on a skill the API cannot see (deactivated), which this call does not remove.
 */
export function replaceRequirements(
  before: readonly Requirement[],
  listed: readonly { skillId: string; requiredLevel: SkillLevel }[],
  isVisible: (skillId: string) => boolean,
  now: string,
): Requirement[] {
  const previous = new Map(before.map((r) => [r.skillId, r]))
  const kept = before.filter((r) => !isVisible(r.skillId) && !listed.some((l) => l.skillId === r.skillId))
  const next = listed.map((l) => {
    const old = previous.get(l.skillId)
    return old && old.requiredLevel === l.requiredLevel
      ? old
      : { skillId: l.skillId, requiredLevel: l.requiredLevel, reviewedAt: now }
  })
  return [...next, ...kept]
}

export interface RequiredBy {
  readonly level: SkillLevel
  readonly role: Pick<JobRole, 'id' | 'name'>
}

/**
 * What a person's roles require, per skill: the highest level any of them asks, and the role that
 * asks it (the first by name on a tie). Inactive roles and hidden skills require nothing.
 */
export function requirementsOf(
  roles: readonly JobRole[],
  isVisible: (skillId: string) => boolean,
): Map<string, RequiredBy> {
  const out = new Map<string, RequiredBy>()
  const ordered = [...roles].filter((r) => r.isActive).sort((a, b) => a.name.localeCompare(b.name))
  for (const role of ordered) {
    for (const req of role.requirements) {
      if (!isVisible(req.skillId)) continue
      const seen = out.get(req.skillId)
      if (!seen || levelRank(req.requiredLevel) > levelRank(seen.level)) {
        out.set(req.skillId, { level: req.requiredLevel, role: { id: role.id, name: role.name } })
      }
    }
  }
  return out
}
