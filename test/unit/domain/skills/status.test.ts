import { describe, expect, it } from 'vitest'
import {
  replaceRequirements,
  requirementsOf,
  type JobRole,
} from '../../../../shared/domain/skills/job-role.ts'
import {
  currentLevel,
  isAttainment,
  isExpiring,
  skillLevels,
  type HeldSkill,
  type SkillLevel,
} from '../../../../shared/domain/skills/skill.ts'
import { skillStatus } from '../../../../shared/domain/skills/status.ts'

describe('skillStatus over every pair of required and attained levels', () => {
  const expected: Record<SkillLevel, Record<SkillLevel, string>> = {
    awareness: { awareness: 'meets', developing: 'exceeds', proficient: 'exceeds', expert: 'exceeds' },
    developing: { awareness: 'below_1', developing: 'meets', proficient: 'exceeds', expert: 'exceeds' },
    proficient: { awareness: 'below_2', developing: 'below_1', proficient: 'meets', expert: 'exceeds' },
    expert: { awareness: 'below_2', developing: 'below_2', proficient: 'below_1', expert: 'meets' },
  }
  for (const required of skillLevels) {
    for (const attained of skillLevels) {
      it(`required ${required}, attained ${attained}: ${expected[required][attained]}`, () => {
        expect(skillStatus(required, attained)).toBe(expected[required][attained])
      })
    }
    it(`required ${required}, nothing held: not_assessed`, () => {
      expect(skillStatus(required, null)).toBe('not_assessed')
    })
  }
  for (const attained of skillLevels) {
    it(`nothing required, ${attained} held: not_required`, () => {
      expect(skillStatus(null, attained)).toBe('not_required')
    })
  }
  it('neither required nor held: not listed', () => {
    expect(skillStatus(null, null)).toBeUndefined()
  })
})

describe('held levels', () => {
  const held = (validUntil: string | null): HeldSkill => ({
    userId: 'u',
    skillId: 's',
    level: 'expert',
    source: 'assessment',
    earnedAt: '2026-01-01T00:00:00.000Z',
    validUntil,
    pendingClaimLevel: null,
    updatedAt: '2026-01-01T00:00:00.000Z',
  })
  const now = '2026-06-01T00:00:00.000Z'

  it('counts until valid_until, then not at all', () => {
    expect(currentLevel(held(null), now)).toBe('expert')
    expect(currentLevel(held('2026-06-02T00:00:00.000Z'), now)).toBe('expert')
    expect(currentLevel(held('2026-06-01T00:00:00.000Z'), now)).toBeNull()
  })

  it('is expiring within 30 days of valid_until, not after it has passed nor further ahead', () => {
    expect(isExpiring('2026-07-01T00:00:00.000Z', now)).toBe(true)
    expect(isExpiring('2026-07-01T00:00:01.000Z', now)).toBe(false)
    expect(isExpiring('2026-05-31T00:00:00.000Z', now)).toBe(false)
    expect(isExpiring(null, now)).toBe(false)
  })

  it('is an attainment when the level rises and not by hand', () => {
    expect(isAttainment(null, 'awareness', 'completion')).toBe(true)
    expect(isAttainment('awareness', 'developing', 'validated')).toBe(true)
    expect(isAttainment('developing', 'developing', 'assessment')).toBe(false)
    expect(isAttainment('expert', 'developing', 'assessment')).toBe(false)
    expect(isAttainment(null, 'expert', 'manual')).toBe(false)
  })
})

describe('requirements', () => {
  const role = (id: string, name: string, reqs: [string, SkillLevel][], isActive = true): JobRole => ({
    id,
    name,
    description: null,
    key: null,
    isActive,
    requirements: reqs.map(([skillId, requiredLevel]) => ({ skillId, requiredLevel, reviewedAt: 't0' })),
    holderCount: 0,
    createdAt: 't0',
    updatedAt: 't0',
  })

  it('takes the highest level any active role asks, naming that role; hidden skills require nothing', () => {
    const r = requirementsOf(
      [
        role('a', 'Alpha', [
          ['s1', 'developing'],
          ['s2', 'expert'],
        ]),
        role('b', 'Bravo', [['s1', 'expert']]),
        role('c', 'Charlie', [['s3', 'expert']], false),
      ],
      (id) => id !== 's2',
    )
    expect([...r.entries()]).toEqual([['s1', { level: 'expert', role: { id: 'b', name: 'Bravo' } }]])
  })

  it('replaces the listed requirements, keeps a hidden one, and keeps reviewed_at where the level is unchanged', () => {
    const before = role('a', 'A', [
      ['s1', 'developing'],
      ['s2', 'expert'],
      ['hidden', 'awareness'],
    ]).requirements
    const after = replaceRequirements(
      before,
      [
        { skillId: 's1', requiredLevel: 'developing' },
        { skillId: 's3', requiredLevel: 'awareness' },
      ],
      (id) => id !== 'hidden',
      't1',
    )
    expect(after).toEqual([
      { skillId: 's1', requiredLevel: 'developing', reviewedAt: 't0' },
      { skillId: 's3', requiredLevel: 'awareness', reviewedAt: 't1' },
      { skillId: 'hidden', requiredLevel: 'awareness', reviewedAt: 't0' },
    ])
  })
})
