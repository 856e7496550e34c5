/**
 * The skills catalogue over the API (api-additions section 4; issue 31): domains and skills (read;
 * writes need admin) and a person's held level (PUT write, DELETE admin), through the services the
 * operator CLI uses (`lms skill-domain create`, `skill create|update`, `user-skill set`).
 */
import * as v from 'valibot'
import {
  CreateSkillDomainInput,
  CreateSkillInput,
  frenchName,
  SetHeldSkillInput,
  UpdateSkillInput,
} from '../../shared/domain/skills/catalogue.ts'
import { requireCapability } from '../../shared/domain/plans/entitlements.ts'
import type { TenantContext } from '../../shared/domain/tenants/tenant.ts'
import { parseBody, parseOrThrow, Uuid } from '../../shared/domain/validation.ts'
import { listMeta, paging } from '../../shared/http/list-query.ts'
import { created, noContent, ok } from '../../shared/http/responses.ts'
import { pathId, route } from '../../shared/http/route.ts'
import { listDomainsPage, listSkillsPage } from '../../shared/services/skills/skills-catalogue-service.ts'
import * as skills from '../../shared/services/skills/skills-service.ts'
import { toHeldSkillResource, toSkillDomainResource, toSkillResource } from './catalogue-representation.ts'

/** The entitlement answers before any parameter is judged (as the job roles routes do). */
const managed = (tenant: TenantContext) => requireCapability(tenant.plan, 'skills_management')

export const SkillListQuery = v.object({ domain_id: v.optional(Uuid) })

export const listSkillDomains = route('GET /api/v1/skill-domains', async ({ tenant, query }) => {
  managed(tenant)
  const page = paging(query)
  const { items, total } = await listDomainsPage(tenant, { offset: page.offset, limit: page.perPage })
  return ok(items.map(toSkillDomainResource), listMeta(page, total))
})

export const createSkillDomain = route('POST /api/v1/skill-domains', async ({ tenant, body }) => {
  managed(tenant)
  const input = parseBody(CreateSkillDomainInput, body)
  const domain = await skills.createDomain(tenant, {
    name: input.name,
    nameFr: frenchName(input.names) ?? null,
  })
  return created(toSkillDomainResource(domain))
})

export const listSkills = route('GET /api/v1/skills', async ({ tenant, query }) => {
  managed(tenant)
  const q = parseOrThrow(SkillListQuery, query, 'query')
  const page = paging(query)
  const { items, total } = await listSkillsPage(
    tenant,
    { domainId: q.domain_id },
    { offset: page.offset, limit: page.perPage },
  )
  return ok(items.map(toSkillResource), listMeta(page, total))
})

export const createSkill = route('POST /api/v1/skills', async ({ tenant, body }) => {
  managed(tenant)
  const input = parseBody(CreateSkillInput, body)
  const skill = await skills.createSkill(tenant, {
    domainId: input.domain_id,
    name: input.name,
    nameFr: frenchName(input.names) ?? null,
    description: input.description ?? null,
    isActive: true,
    isCritical: input.is_critical ?? false,
  })
  return created(toSkillResource(skill))
})

export const getSkill = route('GET /api/v1/skills/{id}', async ({ tenant, ...input }) => {
  managed(tenant)
  return ok(toSkillResource(await skills.getSkill(tenant, pathId(input, 'id', 'skill', Uuid))))
})

export const updateSkill = route('PATCH /api/v1/skills/{id}', async ({ tenant, body, ...input }) => {
  managed(tenant)
  const id = pathId(input, 'id', 'skill', Uuid)
  const changes = parseBody(UpdateSkillInput, body, {})
  const skill = await skills.updateSkill(tenant, id, {
    ...(changes.name !== undefined ? { name: changes.name } : {}),
    ...(frenchName(changes.names) !== undefined ? { nameFr: frenchName(changes.names) } : {}),
    ...(changes.description !== undefined ? { description: changes.description } : {}),
    isActive: changes.is_active,
    isCritical: changes.is_critical,
  })
  return ok(toSkillResource(skill))
})

export const putUserSkill = route(
  'PUT /api/v1/users/{id}/skills/{skill_id}',
  async ({ tenant, body, ...input }) => {
    managed(tenant)
    const userId = pathId(input, 'id', 'user', Uuid)
    const skillId = pathId(input, 'skill_id', 'skill', Uuid)
    const level = parseBody(SetHeldSkillInput, body)
    const held = await skills.setLevel(tenant, userId, skillId, {
      level: level.level,
      source: level.source,
      validUntil: level.valid_until ?? null,
    })
    return ok(toHeldSkillResource(held))
  },
)

export const deleteUserSkill = route(
  'DELETE /api/v1/users/{id}/skills/{skill_id}',
  async ({ tenant, ...input }) => {
    managed(tenant)
    await skills.removeLevel(
      tenant,
      pathId(input, 'id', 'user', Uuid),
      pathId(input, 'skill_id', 'skill', Uuid),
    )
    return noContent()
  },
)

export const catalogueRoutes = [
  listSkillDomains,
  createSkillDomain,
  listSkills,
  createSkill,
  getSkill,
  updateSkill,
  putUserSkill,
  deleteUserSkill,
]
