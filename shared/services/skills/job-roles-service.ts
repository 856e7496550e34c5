/**
 * Job roles and who holds them, for every channel: the API (five routes), the operator CLI (the
 * user page's manual assignment, the profile field, the CSV import).
 */
import { randomUUID } from 'node:crypto'
import { ConflictError, NotFoundError, RuleViolationError, ValidationError } from '../../domain/errors.ts'
import { requireCapability } from '../../domain/plans/entitlements.ts'
import { newEvent } from '../../domain/events.ts'
import {
  replaceRequirements,
  type CreateJobRoleInput,
  type JobRole,
  type RoleHolding,
  type RoleSource,
  type UpdateJobRoleInput,
} from '../../domain/skills/job-role.ts'
import type { Skill } from '../../domain/skills/skill.ts'
import { byName, pageOf } from '../../domain/lists.ts'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import {
  changeHolding,
  getJobRole as getStoredRole,
  getJobRoles,
  holdingsOfUser,
  insertJobRole,
  listJobRoles as listStoredRoles,
  saveJobRole,
  type JobRoleRefusal,
} from '../../store/skills/job-roles-store.ts'
import { isStale, retryOnConflict } from '../../store/core/optimistic.ts'
import { listSkills } from '../../store/skills/skills-store.ts'
import { isRefused } from '../../store/core/store-errors.ts'
import { getUser as getStoredUser } from '../../store/users/users-store.ts'

const nowIso = () => new Date().toISOString()

/**
 * Skills management (Starter and up) on every channel: the app's pages (the operator CLI locally)
 * and the API, which also needs API access (Growth and up, checked first). docs/decisions/0019.
 */
export const requireSkillsManagement = (tenant: TenantContext): void =>
  requireCapability(tenant.plan, 'skills_management')

const nameTaken = () => new ConflictError('job_role.name_taken', 'A job role with this name already exists')
const unknownSkill = (field: string) => new ValidationError(field, 'Unknown or inactive skill')

/** The tenant's skills by id: what requirements are checked against and shown through. */
export async function skillsById(tenant: TenantContext): Promise<Map<string, Skill>> {
  return new Map((await listSkills(tenant)).map((s) => [s.id, s]))
}

export async function getJobRole(tenant: TenantContext, id: string): Promise<JobRole> {
  const role = await getStoredRole(tenant, id)
  if (!role) throw new NotFoundError('job_role')
  return role
}

export interface JobRoleListQuery {
  readonly search?: string
  readonly includeInactive: boolean
  readonly offset: number
  readonly limit: number
}

/** Ordered by name (case-insensitively, id breaking ties); `search` is a substring of the name. */
export async function listJobRoles(
  tenant: TenantContext,
  q: JobRoleListQuery,
): Promise<{ items: JobRole[]; total: number }> {
  const needle = q.search?.toLowerCase()
  const all = (await listStoredRoles(tenant))
    .filter((r) => q.includeInactive || r.isActive)
    .filter((r) => !needle || r.name.toLowerCase().includes(needle))
    .sort(byName)
  return pageOf(all, q)
}

/** Every listed skill must exist and be active. */
function checkListed(listed: readonly { skill_id: string }[], skills: ReadonlyMap<string, Skill>): void {
  listed.forEach((r, i) => {
    if (!skills.get(r.skill_id)?.isActive) throw unknownSkill(`required_skills[${i}].skill_id`)
  })
}

export async function createJobRole(
  tenant: TenantContext,
  input: CreateJobRoleInput & { key?: string | null },
  at = nowIso(),
): Promise<JobRole> {
  requireSkillsManagement(tenant)
  const listed = input.required_skills ?? []
  if (listed.length > 0) checkListed(listed, await skillsById(tenant))
  const role: JobRole = {
    id: randomUUID(),
    name: input.name,
    description: input.description ?? null,
    key: input.key ?? null,
    isActive: true,
    requirements: listed.map((r) => ({
      skillId: r.skill_id,
      requiredLevel: r.required_level,
      reviewedAt: at,
    })),
    holderCount: 0,
    createdAt: at,
    updatedAt: at,
  }
  try {
    await insertJobRole(tenant, role)
  } catch (err) {
    if (isRefused<JobRoleRefusal>(err, 'name_taken')) throw nameTaken()
    throw err
  }
  return role
}

export async function updateJobRole(
  tenant: TenantContext,
  id: string,
  input: UpdateJobRoleInput,
  at = nowIso(),
): Promise<JobRole> {
  requireSkillsManagement(tenant)
  const skills = await skillsById(tenant)
  if (input.required_skills) checkListed(input.required_skills, skills)
  const visible = (skillId: string) => skills.get(skillId)?.isActive === true
  try {
    return await retryOnConflict(async () => {
      const before = await getJobRole(tenant, id)
      const after: JobRole = {
        ...before,
        name: input.name ?? before.name,
        description: input.description !== undefined ? input.description : before.description,
        isActive: input.is_active ?? before.isActive,
        requirements: input.required_skills
          ? replaceRequirements(
              before.requirements,
              input.required_skills.map((r) => ({ skillId: r.skill_id, requiredLevel: r.required_level })),
              visible,
              at,
            )
          : before.requirements,
        updatedAt: at,
      }
      try {
        await saveJobRole(tenant, { before, after })
      } catch (err) {
        if (isRefused<JobRoleRefusal>(err, 'name_taken')) throw nameTaken()
        throw err
      }
      // The count is the holders' to move: read it back rather than trusting the copy read first.
      return { ...after, holderCount: (await getStoredRole(tenant, id))?.holderCount ?? after.holderCount }
    })
  } catch (err) {
    if (isStale(err))
      throw new ConflictError('job_role.concurrent_update', 'The job role changed meanwhile; retry')
    throw err
  }
}

export interface HeldRole {
  readonly jobRoleId: string
  readonly name: string
  readonly isActive: boolean
  readonly sources: readonly RoleSource[]
}

/** The person's roles with their sources, ordered by name. */
export async function rolesOfUser(tenant: TenantContext, userId: string): Promise<HeldRole[]> {
  const holdings = await holdingsOfUser(tenant, userId)
  const roles = new Map(
    (
      await getJobRoles(
        tenant,
        holdings.map((h) => h.jobRoleId),
      )
    ).map((r) => [r.id, r]),
  )
  return holdings
    .flatMap((h) => {
      const role = roles.get(h.jobRoleId)
      return role
        ? [{ jobRoleId: role.id, name: role.name, isActive: role.isActive, sources: h.sources, id: role.id }]
        : []
    })
    .sort(byName)
    .map(({ jobRoleId, name, isActive, sources }) => ({ jobRoleId, name, isActive, sources }))
}

/** The person, who must not have been erased: an erased person holds no role (0019). */
async function requireUser(tenant: TenantContext, userId: string): Promise<void> {
  const user = await getStoredUser(tenant, userId)
  if (!user) throw new NotFoundError('user')
  if (user.erasedAt !== undefined)
    throw new RuleViolationError('user.erased', 'The user was erased; the account cannot change')
}

/**
 * Sources that announce a new holder (`job_role.assigned`): the user page (`manual`) and PUT
 * job-roles (`import` through the API). The CSV import and a profile field announce nothing.
 */
type Announce = 'manual' | 'import' | null

/**
 * Adds or removes one source of one role for one person, exactly once: re-read and re-decide when
 * the holding changed meanwhile. @returns whether the person newly holds the role
 */
async function changeSource(
  tenant: TenantContext,
  userId: string,
  role: Pick<JobRole, 'id'>,
  source: RoleSource,
  op: 'add' | 'remove',
  announce: Announce,
  at: string,
): Promise<boolean> {
  return retryOnConflict(
    async () => {
      const before = (await holdingsOfUser(tenant, userId)).find((h) => h.jobRoleId === role.id)
      const sources = new Set(before?.sources ?? [])
      if (op === 'add' ? sources.has(source) : !sources.has(source)) return false
      if (op === 'add') sources.add(source)
      else sources.delete(source)
      const after: RoleHolding | undefined =
        sources.size === 0
          ? undefined
          : { userId, jobRoleId: role.id, sources: [...sources].sort(), version: (before?.version ?? 0) + 1 }
      const newlyHeld = before === undefined && after !== undefined
      const events =
        newlyHeld && announce
          ? [
              newEvent(
                'job_role.assigned',
                { userId, jobRoleId: role.id, source: announce, assignedAt: at },
                at,
              ),
            ]
          : []
      try {
        await changeHolding(tenant, { userId, jobRoleId: role.id, before, after, effects: { events } })
      } catch (err) {
        if (isRefused<JobRoleRefusal>(err, 'user_missing')) throw new NotFoundError('user')
        if (isRefused<JobRoleRefusal>(err, 'role_inactive')) throw new NotFoundError('job_role')
        throw err
      }
      return newlyHeld
    },
    { tries: 6 },
  )
}

/** The operator's assignment (user page, profile field, CSV import). */
export const assignRole = (
  tenant: TenantContext,
  userId: string,
  roleId: string,
  source: RoleSource,
  at = nowIso(),
): Promise<HeldRole[]> => changeAssignment(tenant, userId, roleId, source, 'add', at)

export const unassignRole = (
  tenant: TenantContext,
  userId: string,
  roleId: string,
  source: RoleSource,
  at = nowIso(),
): Promise<HeldRole[]> => changeAssignment(tenant, userId, roleId, source, 'remove', at)

async function changeAssignment(
  tenant: TenantContext,
  userId: string,
  roleId: string,
  source: RoleSource,
  change: 'add' | 'remove',
  at: string,
): Promise<HeldRole[]> {
  requireSkillsManagement(tenant)
  await requireUser(tenant, userId)
  const role = await getJobRole(tenant, roleId)
  // The user page announces a new holder; a profile field and the CSV import do not (Announce).
  const announce = change === 'add' && source === 'manual' ? 'manual' : null
  await changeSource(tenant, userId, role, source, change, announce, at)
  return rolesOfUser(tenant, userId)
}

export interface ImportedRolesResult {
  readonly userId: string
  readonly added: string[]
  readonly removed: string[]
  readonly jobRoles: HeldRole[]
}

/**
 * PUT /users/{id}/job-roles: the person's `import`-source roles become exactly `ids`; manual and
 * profile-field roles are untouched. Each role is its own transaction (holding, count, event), so
 * a retried PUT completes what an interrupted one began and announces nothing twice.
 */
export async function replaceImportedRoles(
  tenant: TenantContext,
  userId: string,
  ids: readonly string[],
  at = nowIso(),
): Promise<ImportedRolesResult> {
  requireSkillsManagement(tenant)
  await requireUser(tenant, userId)
  const wanted = [...new Set(ids)]
  const roles = new Map((await getJobRoles(tenant, wanted)).map((r) => [r.id, r]))
  wanted.forEach((id, i) => {
    if (!roles.get(id)?.isActive)
      throw new ValidationError(`job_role_ids[${i}]`, `job_role_ids[${i}]: unknown or inactive job role`)
  })
  const current = (await holdingsOfUser(tenant, userId)).filter((h) => h.sources.includes('import'))
  const currentIds = new Set(current.map((h) => h.jobRoleId))
  const added = wanted.filter((id) => !currentIds.has(id))
  const removed = [...currentIds].filter((id) => !wanted.includes(id)).sort()
  for (const id of added) await changeSource(tenant, userId, { id }, 'import', 'add', 'import', at)
  for (const id of removed) await changeSource(tenant, userId, { id }, 'import', 'remove', null, at)
  return { userId, added, removed, jobRoles: await rolesOfUser(tenant, userId) }
}

/**
 * Erasure: the person no longer holds any role, so no role counts them (`holder_count` counts live
 * people). Each holding goes with its count in its own transaction, conditioned on it as read;
 * nothing is announced. Idempotent; a role assigned after the erasure is refused by the holding's
 * own condition on the user. @returns how many roles were released
 */
export async function releaseRolesOfErased(tenant: TenantContext, userId: string): Promise<number> {
  let released = 0
  for (const { jobRoleId } of await holdingsOfUser(tenant, userId)) {
    await retryOnConflict(
      async () => {
        const before = (await holdingsOfUser(tenant, userId)).find((h) => h.jobRoleId === jobRoleId)
        if (!before) return
        await changeHolding(tenant, { userId, jobRoleId, before, after: undefined, effects: { events: [] } })
        released++
      },
      { tries: 6 },
    )
  }
  return released
}
