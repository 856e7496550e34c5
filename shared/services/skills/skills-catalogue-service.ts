/**
 * The skills catalogue as lists (GET /api/v1/skill-domains and /skills): a tenant's domains and
 * skills number in the hundreds, so each list is one Query on its key prefix (skills-store.ts),
 * ordered by name and paged in memory.
 */
import type { Skill, SkillDomain } from '../../domain/skills/skill.ts'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import { listDomains, listSkills } from '../../store/skills/skills-store.ts'
import { requireSkillsManagement } from './job-roles-service.ts'

export interface Window {
  readonly offset: number
  readonly limit: number
}

const byName = (a: { name: string; id: string }, b: { name: string; id: string }) =>
  a.name.localeCompare(b.name, 'en') || (a.id < b.id ? -1 : 1)

const page = <T extends { name: string; id: string }>(all: T[], w: Window) => ({
  items: all.sort(byName).slice(w.offset, w.offset + w.limit),
  total: all.length,
})

export async function listDomainsPage(
  tenant: TenantContext,
  w: Window,
): Promise<{ items: SkillDomain[]; total: number }> {
  requireSkillsManagement(tenant)
  return page(await listDomains(tenant), w)
}

/** Every skill, inactive ones included (they carry `is_active`), optionally of one domain. */
export async function listSkillsPage(
  tenant: TenantContext,
  filter: { readonly domainId?: string | undefined },
  w: Window,
): Promise<{ items: Skill[]; total: number }> {
  requireSkillsManagement(tenant)
  const all = await listSkills(tenant)
  return page(
    all.filter((s) => filter.domainId === undefined || s.domainId === filter.domainId),
    w,
  )
}
