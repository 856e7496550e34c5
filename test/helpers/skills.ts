/** Skills fixtures: domains, skills and levels written through the services, as the CLI does. */
import type { TenantContext } from '../../shared/domain/tenants/tenant.ts'
import type { SkillLevel, SkillSource } from '../../shared/domain/skills/skill.ts'
import { createDomain, createSkill, setLevel } from '../../shared/services/skills/skills-service.ts'
import { call, type Reply } from './http.ts'
import type { TestTenant } from './tenants.ts'

export async function makeDomain(tenant: TenantContext, name = 'Domain', nameFr: string | null = null) {
  return createDomain(tenant, { name, nameFr })
}

export async function makeSkill(
  tenant: TenantContext,
  domainId: string,
  name: string,
  options: { nameFr?: string; critical?: boolean; active?: boolean } = {},
) {
  return createSkill(tenant, {
    domainId,
    name,
    nameFr: options.nameFr ?? null,
    isActive: options.active ?? true,
    isCritical: options.critical ?? false,
  })
}

export async function hold(
  tenant: TenantContext,
  userId: string,
  skillId: string,
  level: SkillLevel,
  source: SkillSource = 'assessment',
  validUntil: string | null = null,
) {
  return setLevel(tenant, userId, skillId, { level, source, validUntil })
}

export const put = (t: TestTenant, path: string, body: unknown, key = t.adminKey): Promise<Reply> =>
  call('PUT', path, { host: `${t.slug}.localhost`, key, body })
