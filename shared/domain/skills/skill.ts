/**
 * Skills: a tenant's skills (grouped in domains, named in English and French), the levels people
 * hold, and the status of a held level against a required one. Pure: no storage here.
 */
import * as v from 'valibot'
import type { EventData } from '../events.ts'

/** Lowest to highest. */
export const skillLevels = ['awareness', 'developing', 'proficient', 'expert'] as const
export type SkillLevel = (typeof skillLevels)[number]

export const skillSources = ['completion', 'assessment', 'validated', 'observed', 'manual'] as const
export type SkillSource = (typeof skillSources)[number]

export const skillLocales = ['en', 'fr-CA'] as const
export type SkillLocale = (typeof skillLocales)[number]

export const SkillLevelSchema = v.picklist(skillLevels, `must be one of ${skillLevels.join(', ')}`)

export interface SkillDomain {
  readonly id: string
  readonly name: string
  readonly nameFr: string | null
}

export interface Skill {
  readonly id: string
  readonly domainId: string
  readonly name: string
  readonly nameFr: string | null
  /** Null on skills stored before descriptions existed (issue 31). */
  readonly description: string | null
  readonly isActive: boolean
  readonly isCritical: boolean
  readonly createdAt: string
  readonly updatedAt: string
}

/** A person's record of one skill: the level held (null while only claimed) and a pending claim. */
export interface HeldSkill {
  readonly userId: string
  readonly skillId: string
  readonly level: SkillLevel | null
  readonly source: SkillSource | null
  readonly earnedAt: string | null
  readonly validUntil: string | null
  readonly pendingClaimLevel: SkillLevel | null
  readonly updatedAt: string
}

export const levelRank = (level: SkillLevel): number => skillLevels.indexOf(level)

/** The French name when asked for and present, else the English one. */
export function localName(named: { name: string; nameFr: string | null }, locale: SkillLocale): string {
  return locale === 'fr-CA' && named.nameFr ? named.nameFr : named.name
}

/** A held level counts only until `valid_until`; after it the person must earn it again. */
export function currentLevel(
  held: Pick<HeldSkill, 'level' | 'validUntil'> | undefined,
  now: string,
): SkillLevel | null {
  if (!held || held.level === null) return null
  if (held.validUntil !== null && held.validUntil <= now) return null
  return held.level
}

/** How far ahead `expiring` looks: a level valid for less than this many days is flagged. */
export const EXPIRING_WITHIN_DAYS = 30

export function isExpiring(validUntil: string | null, now: string): boolean {
  if (validUntil === null || validUntil <= now) return false
  return Date.parse(validUntil) - Date.parse(now) <= EXPIRING_WITHIN_DAYS * 86_400_000
}

/**
 * Whether recording `next` is an attainment (`skill.attained`): the held level rises, and not by
 * hand (a level set by hand, or one that drops or stays, fires nothing).
 */
export function isAttainment(previous: SkillLevel | null, next: SkillLevel, source: SkillSource): boolean {
  if (source === 'manual') return false
  return previous === null || levelRank(next) > levelRank(previous)
}

/** A held skill as it becomes, written only if it is still as `before` was read (absent if undefined). */
export interface HeldSkillChange {
  readonly before: HeldSkill | undefined
  readonly after: HeldSkill
}

/**
 * What completing a course that grants `grant` does to the learner's held skill: raises it (source
 * `completion`, announced by `skill.attained`) when the granted level is above the current one;
 * nothing otherwise. A pending claim the granted level settles is cleared.
 */
export function completionRaise(
  grant: { readonly skillId: string; readonly level: SkillLevel },
  userId: string,
  before: HeldSkill | undefined,
  at: string,
): { change: HeldSkillChange; attained: EventData<'skill.attained'> } | undefined {
  const previous = currentLevel(before, at)
  if (!isAttainment(previous, grant.level, 'completion')) return undefined
  const claim = before?.pendingClaimLevel ?? null
  const after: HeldSkill = {
    userId,
    skillId: grant.skillId,
    level: grant.level,
    source: 'completion',
    earnedAt: at,
    validUntil: null,
    pendingClaimLevel: claim !== null && levelRank(claim) <= levelRank(grant.level) ? null : claim,
    updatedAt: at,
  }
  return {
    change: { before, after },
    attained: {
      userId,
      skillId: grant.skillId,
      level: grant.level,
      previousLevel: previous,
      source: 'completion',
      earnedAt: at,
      validUntil: null,
    },
  }
}
