/**
 * The skills summaries' backfill: people whose holdings or held skills were written before the
 * summaries existed get theirs built from those items. Idempotent (a summary already right is not
 * written) and exact beside live writes: each person's summary is read first, then their holdings
 * and held skills (strongly consistent), and written only if its `version` has not moved since, so
 * a holding or held-skill change committed meanwhile sends that person round again. To run once per
 * tenant after the release that maintains summaries is fully deployed (docs/decisions/0028).
 */
import { mapLimit } from '../../concurrency.ts'
import { sameSummary, summaryOf } from '../../domain/skills/summary.ts'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import { retryOnConflict } from '../../store/core/optimistic.ts'
import { holdingsOfUser, peopleHoldingRoles } from '../../store/skills/job-roles-store.ts'
import {
  allSkillSummaries,
  getSkillSummary,
  replaceSkillSummary,
} from '../../store/skills/skill-summaries.ts'
import { heldSkillsOfUser, peopleWithHeldSkills } from '../../store/skills/skills-store.ts'

export interface SummaryBackfill {
  /** People with a holding, a held skill or a summary. */
  readonly people: number
  /** Summaries written (created or corrected). */
  readonly written: number
}

/** One person's summary, made right. @returns whether it was written */
async function backfillPerson(tenant: TenantContext, userId: string): Promise<boolean> {
  return retryOnConflict(
    async () => {
      const stored = await getSkillSummary(tenant, userId)
      const [holdings, held] = await Promise.all([
        holdingsOfUser(tenant, userId),
        heldSkillsOfUser(tenant, userId),
      ])
      const summary = summaryOf(userId, holdings, held)
      if (stored && sameSummary(stored.summary, summary)) return false
      await replaceSkillSummary(tenant, summary, stored?.version)
      return true
    },
    { tries: 6 },
  )
}

export async function backfillSkillSummaries(tenant: TenantContext): Promise<SummaryBackfill> {
  const [holders, skilled, summarized] = await Promise.all([
    peopleHoldingRoles(tenant),
    peopleWithHeldSkills(tenant),
    allSkillSummaries(tenant),
  ])
  const people = [...new Set([...holders, ...skilled, ...summarized.map((s) => s.userId)])].sort()
  const written = await mapLimit(people, 8, (userId) => backfillPerson(tenant, userId))
  return { people: people.length, written: written.filter(Boolean).length }
}
