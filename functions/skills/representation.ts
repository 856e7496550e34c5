/** How job roles and a person's skills read over the API; the types are inferred from the schemas the OpenAPI document shows. */
import * as v from 'valibot'
import { roleSources, type JobRole } from '../../shared/domain/skills/job-role.ts'
import { skillLevels, skillSources, type Skill } from '../../shared/domain/skills/skill.ts'
import { skillStatuses } from '../../shared/domain/skills/status.ts'
import type { HeldRole, ImportedRolesResult } from '../../shared/services/skills/job-roles-service.ts'
import type { PersonSkills } from '../../shared/services/skills/skills-service.ts'

const Level = v.picklist(skillLevels)
const Status = v.picklist(skillStatuses)
const Named = v.object({ id: v.string(), name: v.string() })

export const JobRoleSchema = v.object({
  id: v.string(),
  name: v.string(),
  description: v.nullable(v.string()),
  key: v.nullable(v.string()),
  is_active: v.boolean(),
  required_skills: v.array(
    v.object({
      skill_id: v.string(),
      skill_name: v.string(),
      required_level: Level,
      reviewed_at: v.string(),
    }),
  ),
  holder_count: v.number(),
  created_at: v.string(),
  updated_at: v.string(),
})

const HeldRoleSchema = v.object({
  job_role_id: v.string(),
  name: v.string(),
  is_active: v.boolean(),
  sources: v.array(v.picklist(roleSources)),
})

export const ImportedRolesSchema = v.object({
  user_id: v.string(),
  added: v.array(v.string()),
  removed: v.array(v.string()),
  job_roles: v.array(HeldRoleSchema),
})

export const PersonSkillsSchema = v.object({
  user_id: v.string(),
  requirements: v.picklist(['job_roles', 'none']),
  job_roles: v.array(Named),
  summary: v.object({
    required_skills: v.number(),
    satisfied: v.number(),
    to_develop: v.number(),
    counts: v.record(Status, v.number()),
  }),
  skills: v.array(
    v.object({
      skill_id: v.string(),
      name: v.string(),
      domain: Named,
      status: Status,
      required_level: v.nullable(Level),
      required_by: v.nullable(v.object({ kind: v.literal('job_role'), id: v.string(), name: v.string() })),
      attained_level: v.nullable(Level),
      source: v.nullable(v.picklist(skillSources)),
      earned_at: v.nullable(v.string()),
      valid_until: v.nullable(v.string()),
      expiring: v.boolean(),
      pending_claim_level: v.nullable(Level),
    }),
  ),
})

/** GET /skills/matrix: one row per person, cells in the column order that `meta.columns` gives. */
export const MatrixRowSchema = v.object({
  id: v.string(),
  user: v.object({ id: v.string(), first_name: v.string(), last_name: v.string() }),
  job_roles: v.array(v.string()),
  cells: v.array(
    v.object({
      skill_id: v.string(),
      status: v.nullable(Status),
      required_level: v.nullable(Level),
      attained_level: v.nullable(Level),
      valid_until: v.nullable(v.string()),
      expiring: v.boolean(),
      pending_claim_level: v.nullable(Level),
    }),
  ),
})

export const MatrixMetaSchema = v.object({
  page: v.number(),
  per_page: v.number(),
  total: v.number(),
  columns: v.array(
    v.object({ skill_id: v.string(), name: v.string(), domain: Named, is_critical: v.boolean() }),
  ),
  columns_truncated: v.boolean(),
  available_columns: v.number(),
  has_requirements: v.boolean(),
  population_truncated: v.boolean(),
})

/** Requirements on a deactivated (or unknown) skill are kept but never shown. */
export function toJobRoleResource(
  role: JobRole,
  skills: ReadonlyMap<string, Skill>,
): v.InferOutput<typeof JobRoleSchema> {
  return {
    id: role.id,
    name: role.name,
    description: role.description,
    key: role.key,
    is_active: role.isActive,
    required_skills: role.requirements.flatMap((r) => {
      const skill = skills.get(r.skillId)
      if (!skill?.isActive) return []
      return [
        {
          skill_id: r.skillId,
          skill_name: skill.name,
          required_level: r.requiredLevel,
          reviewed_at: r.reviewedAt,
        },
      ]
    }),
    holder_count: role.holderCount,
    created_at: role.createdAt,
    updated_at: role.updatedAt,
  }
}

export const toHeldRoles = (roles: readonly HeldRole[]): v.InferOutput<typeof HeldRoleSchema>[] =>
  roles.map((r) => ({
    job_role_id: r.jobRoleId,
    name: r.name,
    is_active: r.isActive,
    sources: [...r.sources],
  }))

export function toImportedRolesResource(r: ImportedRolesResult): v.InferOutput<typeof ImportedRolesSchema> {
  return { user_id: r.userId, added: r.added, removed: r.removed, job_roles: toHeldRoles(r.jobRoles) }
}

export function toPersonSkillsResource(p: PersonSkills): v.InferOutput<typeof PersonSkillsSchema> {
  return {
    user_id: p.userId,
    requirements: p.requirements,
    job_roles: p.jobRoles.map(({ id, name }) => ({ id, name })),
    summary: {
      required_skills: p.summary.requiredSkills,
      satisfied: p.summary.satisfied,
      to_develop: p.summary.toDevelop,
      counts: p.summary.counts,
    },
    skills: p.skills.map((s) => ({
      skill_id: s.skillId,
      name: s.name,
      domain: s.domain,
      status: s.status,
      required_level: s.requiredLevel,
      required_by: s.requiredBy,
      attained_level: s.attainedLevel,
      source: s.source,
      earned_at: s.earnedAt,
      valid_until: s.validUntil,
      expiring: s.expiring,
      pending_claim_level: s.pendingClaimLevel,
    })),
  }
}
