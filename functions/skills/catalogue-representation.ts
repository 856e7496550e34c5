/** How the skills catalogue and a person's held level read over the API (api-additions section 4). */
import * as v from 'valibot'
import {
  skillLevels,
  skillSources,
  type HeldSkill,
  type Skill,
  type SkillDomain,
} from '../../shared/domain/skills/skill.ts'

const Names = v.object({ 'fr-CA': v.nullable(v.string()) })

export const SkillDomainSchema = v.object({ id: v.string(), name: v.string(), names: Names })

export const SkillSchema = v.object({
  id: v.string(),
  domain_id: v.string(),
  name: v.string(),
  names: Names,
  description: v.nullable(v.string()),
  is_active: v.boolean(),
  is_critical: v.boolean(),
  created_at: v.string(),
  updated_at: v.string(),
})

export const HeldSkillSchema = v.object({
  user_id: v.string(),
  skill_id: v.string(),
  level: v.nullable(v.picklist(skillLevels)),
  source: v.nullable(v.picklist(skillSources)),
  earned_at: v.nullable(v.string()),
  valid_until: v.nullable(v.string()),
  pending_claim_level: v.nullable(v.picklist(skillLevels)),
  updated_at: v.string(),
})

export const toSkillDomainResource = (d: SkillDomain): v.InferOutput<typeof SkillDomainSchema> => ({
  id: d.id,
  name: d.name,
  names: { 'fr-CA': d.nameFr },
})

export const toSkillResource = (s: Skill): v.InferOutput<typeof SkillSchema> => ({
  id: s.id,
  domain_id: s.domainId,
  name: s.name,
  names: { 'fr-CA': s.nameFr },
  description: s.description,
  is_active: s.isActive,
  is_critical: s.isCritical,
  created_at: s.createdAt,
  updated_at: s.updatedAt,
})

export const toHeldSkillResource = (h: HeldSkill): v.InferOutput<typeof HeldSkillSchema> => ({
  user_id: h.userId,
  skill_id: h.skillId,
  level: h.level,
  source: h.source,
  earned_at: h.earnedAt,
  valid_until: h.validUntil,
  pending_claim_level: h.pendingClaimLevel,
  updated_at: h.updatedAt,
})
