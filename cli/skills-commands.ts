/** Skills, job roles and the audit log for the operator (the app's admin pages, locally). */
import { roleSources, type RoleSource } from '../shared/domain/skills/job-role.ts'
import {
  skillLevels,
  skillSources,
  type HeldSkill,
  type Skill,
  type SkillSource,
} from '../shared/domain/skills/skill.ts'
import { auditTrail } from '../shared/services/tenants/audit-service.ts'
import * as jobRoles from '../shared/services/skills/job-roles-service.ts'
import * as skills from '../shared/services/skills/skills-service.ts'
import { toHeldRoles, toJobRoleResource } from '../functions/skills/representation.ts'
import { onOff, required, UsageError } from './args.ts'
import { at, optionalTimestamp, tenantOf, command, type Command, type Flags } from './flags.ts'

const skillView = (s: Skill) => ({
  id: s.id,
  domain_id: s.domainId,
  name: s.name,
  name_fr: s.nameFr,
  is_active: s.isActive,
  is_critical: s.isCritical,
})

const heldView = (h: HeldSkill) => ({
  user_id: h.userId,
  skill_id: h.skillId,
  level: h.level,
  source: h.source,
  earned_at: h.earnedAt,
  valid_until: h.validUntil,
  pending_claim_level: h.pendingClaimLevel,
})

function oneOf<T extends string>(flags: Flags, name: string, values: readonly T[]): T {
  const raw = required(flags, name)
  if (!(values as readonly string[]).includes(raw))
    throw new UsageError(`--${name} takes ${values.join('|')}`)
  return raw as T
}

const level = (f: Flags) => oneOf(f, 'level', skillLevels)

export const skillCommands: Record<string, Command> = {
  'skill-domain create': command('--tenant S --name N [--name-fr N]', 'create a skill domain', async (f) => {
    const d = await skills.createDomain(await tenantOf(f), {
      name: required(f, 'name'),
      nameFr: f.get('name-fr') ?? null,
    })
    return { id: d.id, name: d.name, name_fr: d.nameFr }
  }),
  'skill create': command(
    '--tenant S --domain ID --name N [--name-fr N] [--critical] [--inactive] [--at ISO]',
    'create a skill',
    async (f) =>
      skillView(
        await skills.createSkill(
          await tenantOf(f),
          {
            domainId: required(f, 'domain'),
            name: required(f, 'name'),
            nameFr: f.get('name-fr') ?? null,
            isActive: f.get('inactive') === undefined,
            isCritical: f.get('critical') !== undefined && onOff(f, 'critical') !== false,
          },
          at(f),
        ),
      ),
  ),
  'skill update': command(
    '--tenant S --id ID [--active on|off] [--critical on|off] [--at ISO]',
    'change a skill',
    async (f) =>
      skillView(
        await skills.updateSkill(
          await tenantOf(f),
          required(f, 'id'),
          { isActive: onOff(f, 'active'), isCritical: onOff(f, 'critical') },
          at(f),
        ),
      ),
  ),
  'user-skill set': command(
    '--tenant S --user ID --skill ID --level L --source completion|assessment|validated|observed|manual [--earned-at ISO] [--valid-until ISO] [--at ISO]',
    "record a person's held level of a skill",
    async (f) =>
      heldView(
        await skills.setLevel(
          await tenantOf(f),
          required(f, 'user'),
          required(f, 'skill'),
          {
            level: level(f),
            source: oneOf<SkillSource>(f, 'source', skillSources),
            earnedAt: optionalTimestamp(f, 'earned-at') ?? undefined,
            validUntil: optionalTimestamp(f, 'valid-until') ?? null,
          },
          at(f),
        ),
      ),
  ),
  'user-skill claim': command(
    '--tenant S --user ID --skill ID --level L [--at ISO]',
    'record a claimed level pending validation',
    async (f) =>
      heldView(
        await skills.claimLevel(
          await tenantOf(f),
          required(f, 'user'),
          required(f, 'skill'),
          level(f),
          at(f),
        ),
      ),
  ),
  'job-role create': command('--tenant S --name N [--key K] [--at ISO]', 'create a job role', async (f) => {
    const tenant = await tenantOf(f)
    const role = await jobRoles.createJobRole(
      tenant,
      { name: required(f, 'name'), key: f.get('key') ?? null },
      at(f),
    )
    return toJobRoleResource(role, await jobRoles.skillsById(tenant))
  }),
  'job-role assign': command(
    '--tenant S --user ID --role ID --source manual|profile|import [--at ISO]',
    'give a person a job role',
    async (f) => {
      const user = required(f, 'user')
      const source = oneOf<RoleSource>(f, 'source', roleSources)
      const roles = await jobRoles.assignRole(await tenantOf(f), user, required(f, 'role'), source, at(f))
      return { user_id: user, job_roles: toHeldRoles(roles) }
    },
  ),
  'job-role unassign': command(
    '--tenant S --user ID --role ID --source manual|profile|import [--at ISO]',
    'take a job role from a person',
    async (f) => {
      const user = required(f, 'user')
      const source = oneOf<RoleSource>(f, 'source', roleSources)
      const roles = await jobRoles.unassignRole(await tenantOf(f), user, required(f, 'role'), source, at(f))
      return { user_id: user, job_roles: toHeldRoles(roles) }
    },
  ),
  'audit list': command('--tenant S [--action A]', 'the audit log, newest first', async (f) => {
    const records = await auditTrail(await tenantOf(f), { action: f.get('action') })
    return {
      data: records.map((r) => ({
        id: r.id,
        action: r.action,
        at: r.createdAt,
        actor: r.actor,
        details: r.details,
      })),
    }
  }),
}
