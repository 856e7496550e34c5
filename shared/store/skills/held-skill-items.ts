/**
 * The held-skill write, shared by the skills store and the outbox writer (a course completion
 * raises a skill in the completion's own transaction): conditioned on the item being as read.
 */
import type { Effects } from '../../domain/events.ts'
import type { HeldSkillChange } from '../../domain/skills/skill.ts'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import { cond, conditionExpression } from '../core/expression.ts'
import { keys } from '../core/keys.ts'
import type { Step } from '../core/transaction.ts'

/** Refused as `stale` when the held skill changed since it was read. */
export function heldSkillStep(tenant: TenantContext, { before, after }: HeldSkillChange): Step<'stale'> {
  return {
    item: {
      Put: {
        Item: {
          ...keys.heldSkill(tenant, after.userId, after.skillId),
          type: 'held_skill',
          user_id: after.userId,
          skill_id: after.skillId,
          level: after.level,
          source: after.source,
          earned_at: after.earnedAt,
          valid_until: after.validUntil,
          pending_claim_level: after.pendingClaimLevel,
          updated_at: after.updatedAt,
        },
        ...conditionExpression(before ? cond.eq('updated_at', before.updatedAt) : cond.notExists()),
      },
    },
    refusal: 'stale',
  }
}

/** The held skills a change's effects raise (a completion granting a skill), as steps of its transaction. */
export function skillLevelSteps(tenant: TenantContext, effects: Effects): Step<'stale'>[] {
  return (effects.skillLevels ?? []).map((change) => heldSkillStep(tenant, change))
}
