/**
 * The skills summaries' backfill: people whose holdings or held skills were written before the
 * summaries existed get theirs built from those items. Idempotent (a summary already right is not
 * written) and exact beside live writes: the summaries are read first, then the holdings and held
 * skills (all strongly consistent), and a summary is written only if its `version` has not moved
 * since it was read (or it is still absent). Every holding or held-skill write moves that version in
 * its own transaction, so one landing after the summary was read refuses the write, and that person
 * is then read again on their own. To run once per tenant after the release that maintains
 * summaries is fully deployed (docs/decisions/0032).
 */
import { mapLimit } from '../../concurrency.ts'
import { sameSummary, summaryOf, type SkillSummary } from '../../domain/skills/summary.ts'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import { isStale, retryOnConflict } from '../../store/core/optimistic.ts'
import { commit } from '../../store/core/transaction.ts'
import { allHoldings, holdingsOfUser } from '../../store/skills/job-roles-store.ts'
import {
  allStoredSummaries,
  getSkillSummary,
  replaceSkillSummary,
  replaceSummaryStep,
} from '../../store/skills/skill-summaries.ts'
import { allHeldSkills, heldSkillsOfUser } from '../../store/skills/skills-store.ts'

/** Summaries written per transaction: few calls, and a refusal sends only these people round again. */
const PER_TRANSACTION = 50

export interface SummaryBackfill {
  /** People with a holding, a held skill or a summary. */
  readonly people: number
  /** Summaries written (created or corrected). */
  readonly written: number
}

/** One person's summary, made right on its own. @returns whether it was written */
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

function byUser<T extends { readonly userId: string }>(items: readonly T[]): Map<string, T[]> {
  const out = new Map<string, T[]>()
  for (const item of items) out.set(item.userId, [...(out.get(item.userId) ?? []), item])
  return out
}

interface Due {
  readonly summary: SkillSummary
  readonly versionRead: number | undefined
}

/** A transaction of summaries; refused as a whole when one moved, then each person on their own. */
async function writeChunk(tenant: TenantContext, chunk: readonly Due[]): Promise<number> {
  try {
    await commit(chunk.map((d) => replaceSummaryStep(tenant, d.summary, d.versionRead)))
    return chunk.length
  } catch (err) {
    if (!isStale(err)) throw err
    const written = await mapLimit(chunk, 8, (d) => backfillPerson(tenant, d.summary.userId))
    return written.filter(Boolean).length
  }
}

export async function backfillSkillSummaries(tenant: TenantContext): Promise<SummaryBackfill> {
  // The summaries before the items: a write between the two reads moves a version read here.
  const stored = new Map((await allStoredSummaries(tenant)).map((s) => [s.summary.userId, s]))
  const [holdings, held] = await Promise.all([allHoldings(tenant), allHeldSkills(tenant)])
  const holdingsBy = byUser(holdings)
  const heldBy = byUser(held)
  const people = [...new Set([...stored.keys(), ...holdingsBy.keys(), ...heldBy.keys()])].sort()
  const due: Due[] = people.flatMap((userId) => {
    const summary = summaryOf(userId, holdingsBy.get(userId) ?? [], heldBy.get(userId) ?? [])
    const before = stored.get(userId)
    return before && sameSummary(before.summary, summary) ? [] : [{ summary, versionRead: before?.version }]
  })
  const chunks = Array.from({ length: Math.ceil(due.length / PER_TRANSACTION) }, (_, i) =>
    due.slice(i * PER_TRANSACTION, (i + 1) * PER_TRANSACTION),
  )
  const written = await mapLimit(chunks, 4, (chunk) => writeChunk(tenant, chunk))
  return { people: people.length, written: written.reduce((a, b) => a + b, 0) }
}
