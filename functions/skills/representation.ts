import type { JobRole } from '../../shared/domain/skills/job-role.ts'
import type { Skill } from '../../shared/domain/skills/skill.ts'
import type { HeldRole, ImportedRolesResult } from '../../shared/services/skills/job-roles-service.ts'
import type { PersonSkills } from '../../shared/services/skills/skills-service.ts'

/** Requirements on a deactivated (or unknown) skill are kept but never shown. */
export function toJobRoleResource(role: JobRole, skills: ReadonlyMap<string, Skill>) {
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

export const toHeldRoles = (roles: readonly HeldRole[]) =>
  roles.map((r) => ({ job_role_id: r.jobRoleId, name: r.name, is_active: r.isActive, sources: r.sources }))

export function toImportedRolesResource(r: ImportedRolesResult) {
  return { user_id: r.userId, added: r.added, removed: r.removed, job_roles: toHeldRoles(r.jobRoles) }
}

export function toPersonSkillsResource(p: PersonSkills) {
  return {
    user_id: p.userId,
    requirements: p.requirements,
    job_roles: p.jobRoles,
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
