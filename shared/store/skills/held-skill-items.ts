/**
 * The held-skill write, shared by the skills store and the enrollment writer (a course completion
 * raises a skill in the completion's own transaction): conditioned on the item being as read, with
 * the person's skills summary moved in the same transaction (skill-summaries.ts).
 */
import type { Effects } from '../../domain/events.ts'
import type { HeldSkillChange } from '../../domain/skills/skill.ts'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import { cond, conditionExpression } from '../core/expression.ts'
import type { Step } from '../core/transaction.ts'
import { heldSkillEntity } from './skill-entities.ts'
import { summaryLevelsStep } from './skill-summaries.ts'

/** Refused as `stale` when the held skill changed since it was read. */
export function heldSkillStep(tenant: TenantContext, { before, after }: HeldSkillChange): Step<'stale'> {
  return {
    item: {
      Put: {
        Item: heldSkillEntity.item(tenant, after),
        ...conditionExpression(before ? cond.eq('updated_at', before.updatedAt) : cond.notExists()),
      },
    },
    refusal: 'stale',
  }
}

/**
 * Held-skill changes as transaction steps: each held skill conditioned on its state as read, and
 * one summary update per person (a transaction may touch an item only once).
 */
export function heldSkillSteps(tenant: TenantContext, changes: readonly HeldSkillChange[]): Step<'stale'>[] {
  const people = [...new Set(changes.map((c) => c.after.userId))]
  return [
    ...changes.map((change) => heldSkillStep(tenant, change)),
    ...people.map((userId) =>
      summaryLevelsStep(
        tenant,
        userId,
        changes.filter((c) => c.after.userId === userId).map((c) => c.after),
      ),
    ),
  ]
}

/** The held skills a change's effects raise (a completion granting a skill), as steps of its transaction. */
export function skillLevelSteps(tenant: TenantContext, effects: Effects): Step<'stale'>[] {
  return heldSkillSteps(tenant, effects.skillLevels ?? [])
}
