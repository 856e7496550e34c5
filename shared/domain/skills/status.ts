/** The status of a person's skill: the held level against the level their roles require. */
import { levelRank, type SkillLevel } from './skill.ts'

export const skillStatuses = [
  'below_2',
  'below_1',
  'not_assessed',
  'meets',
  'exceeds',
  'not_required',
] as const
export type SkillStatus = (typeof skillStatuses)[number]

/**
 * @returns undefined when the skill is neither required nor held (it is not listed at all)
 * @example skillStatus('proficient', 'awareness') // 'below_2'
 */
export function skillStatus(
  required: SkillLevel | null,
  attained: SkillLevel | null,
): SkillStatus | undefined {
  if (required === null) return attained === null ? undefined : 'not_required'
  if (attained === null) return 'not_assessed'
  const gap = levelRank(attained) - levelRank(required)
  if (gap >= 1) return 'exceeds'
  if (gap === 0) return 'meets'
  return gap === -1 ? 'below_1' : 'below_2'
}

/**
 * Most urgent first: the widest known gap, then the smaller one, then a required skill nobody has
 * assessed yet, then what is satisfied; skills no role requires come last (docs/decisions/0019).
 */
export const statusUrgency: Readonly<Record<SkillStatus, number>> = {
  below_2: 0,
  below_1: 1,
  not_assessed: 2,
  meets: 3,
  exceeds: 4,
  not_required: 5,
}

export const isSatisfied = (s: SkillStatus): boolean => s === 'meets' || s === 'exceeds'
export const isToDevelop = (s: SkillStatus): boolean =>
  s === 'below_1' || s === 'below_2' || s === 'not_assessed'

export function emptyCounts(): Record<SkillStatus, number> {
  return { below_2: 0, below_1: 0, not_assessed: 0, meets: 0, exceeds: 0, not_required: 0 }
}
