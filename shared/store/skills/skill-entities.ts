/** Skill domains, skills and held skills as stored (decision 0035: each declared once). */
import * as v from 'valibot'
import { skillLevels, skillSources } from '../../domain/skills/skill.ts'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import { withDefault } from '../core/decode.ts'
import { defineEntity, field, optionalField } from '../core/entity.ts'
import { keys } from '../core/keys.ts'

export const skillDomainEntity = defineEntity(
  'skill_domain',
  {
    id: field('id', v.string()),
    name: field('name', v.string()),
    nameFr: optionalField('name_fr', v.string()),
  },
  { key: (tenant: TenantContext, d) => keys.skillDomain(tenant, d.id) },
)

export const skillEntity = defineEntity(
  'skill',
  {
    id: field('id', v.string()),
    domainId: field('domain_id', v.string()),
    name: field('name', v.string()),
    nameFr: optionalField('name_fr', v.string()),
    description: optionalField('description', v.string()),
    isActive: field('is_active', withDefault(v.boolean(), true)),
    isCritical: field('is_critical', withDefault(v.boolean(), false)),
    createdAt: field('created_at', v.string()),
    updatedAt: field('updated_at', v.string()),
  },
  { key: (tenant: TenantContext, s) => keys.skill(tenant, s.id) },
)

/** One item per person and skill; the level is null while a level is only claimed. */
export const heldSkillEntity = defineEntity(
  'held_skill',
  {
    userId: field('user_id', v.string()),
    skillId: field('skill_id', v.string()),
    level: optionalField('level', v.picklist(skillLevels)),
    source: optionalField('source', v.picklist(skillSources)),
    earnedAt: optionalField('earned_at', v.string()),
    validUntil: optionalField('valid_until', v.string()),
    pendingClaimLevel: optionalField('pending_claim_level', v.picklist(skillLevels)),
    updatedAt: field('updated_at', v.string()),
  },
  { key: (tenant: TenantContext, h) => keys.heldSkill(tenant, h.userId, h.skillId) },
)
