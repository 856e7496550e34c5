/**
 * A person's skills summary: the roles they hold and, per held skill, what a matrix cell shows of
 * it. It holds no requirement and no status: those follow from the roles' requirements, the skills'
 * activity and the clock, which are joined when the summary is read (docs/decisions/0032), so a
 * change of a role or a skill never has to reach every holder's summary.
 */
import type { RoleHolding } from './job-role.ts'
import type { HeldSkill } from './skill.ts'

/** What a cell needs of a held skill; the rest of the held item (source, dates) is not copied. */
export type HeldLevel = Pick<HeldSkill, 'skillId' | 'level' | 'validUntil' | 'pendingClaimLevel'>

export interface SkillSummary {
  readonly userId: string
  readonly roleIds: readonly string[]
  readonly held: readonly HeldLevel[]
}

export const heldLevelOf = (h: HeldLevel): HeldLevel => ({
  skillId: h.skillId,
  level: h.level,
  validUntil: h.validUntil,
  pendingClaimLevel: h.pendingClaimLevel,
})

/** The summary a person's holdings and held skills make (what the backfill writes). */
export function summaryOf(
  userId: string,
  holdings: readonly Pick<RoleHolding, 'jobRoleId'>[],
  held: readonly HeldLevel[],
): SkillSummary {
  return {
    userId,
    roleIds: [...new Set(holdings.map((h) => h.jobRoleId))].sort(),
    held: [...held].map(heldLevelOf).sort((a, b) => (a.skillId < b.skillId ? -1 : 1)),
  }
}

/** Whether two summaries say the same (roles and held skills in any order). */
export function sameSummary(a: SkillSummary, b: SkillSummary): boolean {
  const x = summaryOf(
    a.userId,
    a.roleIds.map((jobRoleId) => ({ jobRoleId })),
    a.held,
  )
  const y = summaryOf(
    b.userId,
    b.roleIds.map((jobRoleId) => ({ jobRoleId })),
    b.held,
  )
  return JSON.stringify(x) === JSON.stringify(y)
}
