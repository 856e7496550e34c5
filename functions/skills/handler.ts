/** Route group `skills`: job roles, a person's roles and skills, the team matrix (document 001), the catalogue (issue 31). */
import { requireCapability } from '../../shared/domain/plans/entitlements.ts'
import {
  CreateJobRoleInput,
  JobRoleListQuery,
  PutUserJobRolesInput,
  UpdateJobRoleInput,
} from '../../shared/domain/skills/job-role.ts'
import type { TenantContext } from '../../shared/domain/tenants/tenant.ts'
import { parseBody, parseOrThrow, Uuid } from '../../shared/domain/validation.ts'
import { listMeta, paging } from '../../shared/http/list-query.ts'
import { created, ok } from '../../shared/http/responses.ts'
import { pathId, route } from '../../shared/http/route.ts'
import { httpStack } from '../../shared/http/stack.ts'
import * as jobRoles from '../../shared/services/skills/job-roles-service.ts'
import * as skills from '../../shared/services/skills/skills-service.ts'
import { catalogueRoutes } from './catalogue.ts'
import { matrixRoute } from './matrix.ts'
import { LocaleQuery } from './queries.ts'

export { matrixRoute }
export {
  createSkill,
  createSkillDomain,
  deleteUserSkill,
  getSkill,
  listSkillDomains,
  listSkills,
  putUserSkill,
  updateSkill,
} from './catalogue.ts'
import { toImportedRolesResource, toJobRoleResource, toPersonSkillsResource } from './representation.ts'

/** Job roles and the person's skills: the skills-management feature (Starter and up). */
const managed = (tenant: TenantContext) => requireCapability(tenant.plan, 'skills_management')

export const listJobRoles = route('GET /api/v1/job-roles', async ({ tenant, query }) => {
  managed(tenant)
  const q = parseOrThrow(JobRoleListQuery, query, 'query')
  const page = paging(query)
  const [{ items, total }, byId] = await Promise.all([
    jobRoles.listJobRoles(tenant, {
      search: q.search,
      includeInactive: q.include_inactive ?? false,
      offset: page.offset,
      limit: page.perPage,
    }),
    jobRoles.skillsById(tenant),
  ])
  return ok(
    items.map((r) => toJobRoleResource(r, byId)),
    listMeta(page, total),
  )
})

export const createJobRole = route('POST /api/v1/job-roles', async ({ tenant, body }) => {
  managed(tenant)
  const input = parseBody(CreateJobRoleInput, body)
  const role = await jobRoles.createJobRole(tenant, input)
  return created(toJobRoleResource(role, await jobRoles.skillsById(tenant)))
})

export const getJobRole = route('GET /api/v1/job-roles/{id}', async ({ tenant, ...input }) => {
  managed(tenant)
  const role = await jobRoles.getJobRole(tenant, pathId(input, 'id', 'job_role', Uuid))
  return ok(toJobRoleResource(role, await jobRoles.skillsById(tenant)))
})

export const updateJobRole = route('PATCH /api/v1/job-roles/{id}', async ({ tenant, body, ...input }) => {
  managed(tenant)
  const id = pathId(input, 'id', 'job_role', Uuid)
  const changes = parseBody(UpdateJobRoleInput, body, {})
  const role = await jobRoles.updateJobRole(tenant, id, changes)
  return ok(toJobRoleResource(role, await jobRoles.skillsById(tenant)))
})

export const putUserJobRoles = route(
  'PUT /api/v1/users/{id}/job-roles',
  async ({ tenant, body, ...input }) => {
    managed(tenant)
    const userId = pathId(input, 'id', 'user', Uuid)
    const { job_role_ids } = parseBody(PutUserJobRolesInput, body)
    return ok(toImportedRolesResource(await jobRoles.replaceImportedRoles(tenant, userId, job_role_ids)))
  },
)

export const getUserSkills = route('GET /api/v1/users/{id}/skills', async ({ tenant, query, ...input }) => {
  managed(tenant)
  const userId = pathId(input, 'id', 'user', Uuid)
  const { locale } = parseOrThrow(LocaleQuery, query, 'query')
  return ok(toPersonSkillsResource(await skills.personSkills(tenant, userId, locale)))
})

export const handler = httpStack([
  listJobRoles,
  createJobRole,
  getJobRole,
  updateJobRole,
  putUserJobRoles,
  getUserSkills,
  matrixRoute,
  ...catalogueRoutes,
])
