/**
 * Skills and what people hold: the operator's catalogue of domains and skills, the held levels
 * (with `skill.attained` when one rises), and a person's skills view.
 */
import { randomUUID } from 'node:crypto'
import { NotFoundError, ValidationError } from '../../domain/errors.ts'
import { newEvent, type DomainEvent } from '../../domain/events.ts'
import { requirementsOf } from '../../domain/skills/job-role.ts'
import {
  currentLevel,
  isAttainment,
  isExpiring,
  localName,
  type HeldSkill,
  type Skill,
  type SkillDomain,
  type SkillLevel,
  type SkillLocale,
  type SkillSource,
} from '../../domain/skills/skill.ts'
import {
  emptyCounts,
  isSatisfied,
  isToDevelop,
  skillStatus,
  statusUrgency,
  type SkillStatus,
} from '../../domain/skills/status.ts'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import { getJobRoles, holdingsOfUser } from '../../store/skills/job-roles-store.ts'
import { retryOnConflict } from '../../store/core/optimistic.ts'
import { isRefused } from '../../store/core/store-errors.ts'
import {
  getDomain,
  getHeldSkill,
  getSkill as getStoredSkill,
  heldSkillsOfUser,
  insertDomain,
  insertSkill,
  listDomains,
  saveHeldSkill,
  removeHeldSkill,
  saveSkill,
  type SkillRefusal,
} from '../../store/skills/skills-store.ts'
import { getUser as getStoredUser } from '../../store/users/users-store.ts'
import { requireSkillsManagement, skillsById } from './job-roles-service.ts'

const nowIso = () => new Date().toISOString()

export async function createDomain(
  tenant: TenantContext,
  input: { name: string; nameFr: string | null },
): Promise<SkillDomain> {
  requireSkillsManagement(tenant)
  const domain: SkillDomain = { id: randomUUID(), name: input.name, nameFr: input.nameFr }
  await insertDomain(tenant, domain)
  return domain
}

export async function createSkill(
  tenant: TenantContext,
  input: {
    domainId: string
    name: string
    nameFr: string | null
    description?: string | null
    isActive: boolean
    isCritical: boolean
  },
  at = nowIso(),
): Promise<Skill> {
  requireSkillsManagement(tenant)
  // A reference in the request body: refused naming the field, as job roles refuse an unknown skill.
  if (!(await getDomain(tenant, input.domainId)))
    throw new ValidationError('domain_id', 'domain_id: unknown skill domain')
  const skill: Skill = {
    id: randomUUID(),
    ...input,
    description: input.description ?? null,
    createdAt: at,
    updatedAt: at,
  }
  await insertSkill(tenant, skill)
  return skill
}

export async function getSkill(tenant: TenantContext, id: string): Promise<Skill> {
  const skill = await getStoredSkill(tenant, id)
  if (!skill) throw new NotFoundError('skill')
  return skill
}

/** A change of a skill: an absent field is kept; a null French name or description clears it. */
export interface SkillChange {
  readonly name?: string
  readonly nameFr?: string | null
  readonly description?: string | null
  readonly isActive?: boolean | undefined
  readonly isCritical?: boolean | undefined
}

export async function updateSkill(
  tenant: TenantContext,
  id: string,
  input: SkillChange,
  at = nowIso(),
): Promise<Skill> {
  requireSkillsManagement(tenant)
  const before = await getSkill(tenant, id)
  const after: Skill = {
    ...before,
    name: input.name ?? before.name,
    nameFr: input.nameFr !== undefined ? input.nameFr : before.nameFr,
    description: input.description !== undefined ? input.description : before.description,
    isActive: input.isActive ?? before.isActive,
    isCritical: input.isCritical ?? before.isCritical,
    updatedAt: at,
  }
  try {
    await saveSkill(tenant, before, after)
  } catch (err) {
    if (isRefused<SkillRefusal>(err, 'not_found')) throw new NotFoundError('skill')
    throw err
  }
  return after
}

async function requireUser(tenant: TenantContext, userId: string): Promise<void> {
  if (!(await getStoredUser(tenant, userId))) throw new NotFoundError('user')
}

export interface LevelInput {
  readonly level: SkillLevel
  readonly source: SkillSource
  readonly earnedAt?: string
  readonly validUntil?: string | null
}

/**
 * A held skill changed as `decide` says from the state read, re-read and decided again when a
 * concurrent write got there first; the events are written in the same transaction.
 */
async function changeHeldSkill(
  tenant: TenantContext,
  userId: string,
  skillId: string,
  decide: (before: HeldSkill | undefined) => { after: HeldSkill; events: DomainEvent[] },
): Promise<HeldSkill> {
  requireSkillsManagement(tenant)
  await requireUser(tenant, userId)
  await getSkill(tenant, skillId)
  return retryOnConflict(async () => {
    const before = await getHeldSkill(tenant, userId, skillId)
    const { after, events } = decide(before)
    await saveHeldSkill(tenant, { before, after, effects: { events } })
    return after
  })
}

/**
 * Records the person's level of a skill (an assessment, a validation, a completion, or by hand).
 * `skill.attained` is written with it, in its transaction, when the level rises and not by hand;
 * a claim at or below the recorded level is settled by it.
 */
export function setLevel(
  tenant: TenantContext,
  userId: string,
  skillId: string,
  input: LevelInput,
  at = nowIso(),
): Promise<HeldSkill> {
  return changeHeldSkill(tenant, userId, skillId, (before) => {
    const previous = currentLevel(before, at)
    const earnedAt = input.earnedAt ?? at
    const validUntil = input.validUntil ?? null
    const claim = before?.pendingClaimLevel ?? null
    const after: HeldSkill = {
      userId,
      skillId,
      level: input.level,
      source: input.source,
      earnedAt,
      validUntil,
      pendingClaimLevel: claim !== null && input.source !== 'manual' ? null : claim,
      updatedAt: at,
    }
    const attained = { userId, skillId, level: input.level, previousLevel: previous, source: input.source }
    const events = isAttainment(previous, input.level, input.source)
      ? [newEvent('skill.attained', { ...attained, earnedAt, validUntil }, at)]
      : []
    return { after, events }
  })
}

/** A person's claim of a level, pending validation: the held level is unchanged. */
export function claimLevel(
  tenant: TenantContext,
  userId: string,
  skillId: string,
  level: SkillLevel,
  at = nowIso(),
): Promise<HeldSkill> {
  return changeHeldSkill(tenant, userId, skillId, (before) => ({
    after: {
      userId,
      skillId,
      level: before?.level ?? null,
      source: before?.source ?? null,
      earnedAt: before?.earnedAt ?? null,
      validUntil: before?.validUntil ?? null,
      pendingClaimLevel: level,
      updatedAt: at,
    },
    events: [],
  }))
}

/**
 * Takes the person's record of a skill away (level and any pending claim), re-read and tried again
 * when a concurrent write got there first. Nothing is announced.
 * @throws NotFoundError `user_skill` when the person holds no record of the skill
 */
export async function removeLevel(tenant: TenantContext, userId: string, skillId: string): Promise<void> {
  requireSkillsManagement(tenant)
  await requireUser(tenant, userId)
  await getSkill(tenant, skillId)
  await retryOnConflict(async () => {
    const held = await getHeldSkill(tenant, userId, skillId)
    if (!held) throw new NotFoundError('user_skill')
    await removeHeldSkill(tenant, held)
  })
}

export interface SkillEntry {
  readonly skillId: string
  readonly name: string
  readonly domain: { readonly id: string; readonly name: string }
  readonly status: SkillStatus
  readonly requiredLevel: SkillLevel | null
  readonly requiredBy: { readonly kind: 'job_role'; readonly id: string; readonly name: string } | null
  readonly attainedLevel: SkillLevel | null
  readonly source: SkillSource | null
  readonly earnedAt: string | null
  readonly validUntil: string | null
  readonly expiring: boolean
  readonly pendingClaimLevel: SkillLevel | null
  readonly isCritical: boolean
}

export interface PersonSkills {
  readonly userId: string
  readonly requirements: 'job_roles' | 'none'
  readonly jobRoles: { readonly id: string; readonly name: string }[]
  readonly summary: {
    readonly requiredSkills: number
    readonly satisfied: number
    readonly toDevelop: number
    readonly counts: Record<SkillStatus, number>
  }
  readonly skills: SkillEntry[]
}

/**
 * One entry per skill the person holds or must hold (active skills only): required first, most
 * urgent first, critical before the rest at equal urgency, then by name.
 */
export async function personSkills(
  tenant: TenantContext,
  userId: string,
  locale: SkillLocale,
  now = nowIso(),
): Promise<PersonSkills> {
  requireSkillsManagement(tenant)
  await requireUser(tenant, userId)
  const [skills, domains, holdings, held] = await Promise.all([
    skillsById(tenant),
    listDomains(tenant),
    holdingsOfUser(tenant, userId),
    heldSkillsOfUser(tenant, userId),
  ])
  const roles = (
    await getJobRoles(
      tenant,
      holdings.map((h) => h.jobRoleId),
    )
  ).filter((r) => r.isActive)
  const visible = (id: string) => skills.get(id)?.isActive === true
  const required = requirementsOf(roles, visible)
  const heldById = new Map(held.map((h) => [h.skillId, h]))
  const domainById = new Map(domains.map((d) => [d.id, d]))
  const ids = new Set([...required.keys(), ...held.filter((h) => h.level !== null).map((h) => h.skillId)])
  const entries: SkillEntry[] = []
  for (const id of ids) {
    const skill = skills.get(id)
    if (!skill?.isActive) continue
    const h = heldById.get(id)
    const req = required.get(id)
    const status = skillStatus(req?.level ?? null, currentLevel(h, now))
    if (!status) continue
    const domain = domainById.get(skill.domainId)
    entries.push({
      skillId: id,
      name: localName(skill, locale),
      domain: { id: skill.domainId, name: domain ? localName(domain, locale) : '' },
      status,
      requiredLevel: req?.level ?? null,
      requiredBy: req ? { kind: 'job_role', id: req.role.id, name: req.role.name } : null,
      attainedLevel: h?.level ?? null,
      source: h?.source ?? null,
      earnedAt: h?.earnedAt ?? null,
      validUntil: h?.validUntil ?? null,
      expiring: isExpiring(h?.validUntil ?? null, now),
      pendingClaimLevel: h?.pendingClaimLevel ?? null,
      isCritical: skill.isCritical,
    })
  }
  entries.sort(
    (a, b) =>
      statusUrgency[a.status] - statusUrgency[b.status] ||
      Number(b.isCritical) - Number(a.isCritical) ||
      a.name.localeCompare(b.name, locale) ||
      (a.skillId < b.skillId ? -1 : 1),
  )
  const counts = emptyCounts()
  for (const e of entries) counts[e.status] += 1
  const requiredEntries = entries.filter((e) => e.status !== 'not_required')
  return {
    userId,
    requirements: required.size > 0 ? 'job_roles' : 'none',
    jobRoles: roles.map((r) => ({ id: r.id, name: r.name })).sort((a, b) => a.name.localeCompare(b.name)),
    summary: {
      requiredSkills: requiredEntries.length,
      satisfied: requiredEntries.filter((e) => isSatisfied(e.status)).length,
      toDevelop: requiredEntries.filter((e) => isToDevelop(e.status)).length,
      counts,
    },
    skills: entries,
  }
}

/** Checks a CLI or API level name. */
export function parseLevel(field: string, raw: string, levels: readonly string[]): SkillLevel {
  if (!levels.includes(raw)) throw new ValidationError(field, `${field} must be one of ${levels.join(', ')}`)
  return raw as SkillLevel
}
