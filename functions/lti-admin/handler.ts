/**
 * Route group `lti-admin`: a tenant's LTI platform registrations and deployments over the API
 * (api-additions section 4; issue 31), admin scope, through the services `lms lti ...` uses. A
 * function of its own, apart from the keyless `lti` group: these routes need the table and no more,
 * while the `lti` function may read the secret that seals the tool's private signing keys
 * (decision 0043).
 */
import * as v from 'valibot'
import {
  AddLtiDeploymentInput,
  CreateLtiRegistrationInput,
  UpdateLtiRegistrationInput,
} from '../../shared/domain/lti/registration-input.ts'
import type { LtiRegistration } from '../../shared/domain/lti/lti.ts'
import type { TenantContext } from '../../shared/domain/tenants/tenant.ts'
import { parseBody, Uuid } from '../../shared/domain/validation.ts'
import { listMeta, paging } from '../../shared/http/list-query.ts'
import { created, noContent, ok } from '../../shared/http/responses.ts'
import { pathId, route } from '../../shared/http/route.ts'
import { httpStack } from '../../shared/http/stack.ts'
import * as lti from '../../shared/services/lti/lti-registrations-service.ts'
import { toLtiDeploymentResource, toLtiRegistrationResource } from './representation.ts'

const withDeployments = async (tenant: TenantContext, r: LtiRegistration) =>
  toLtiRegistrationResource(r, await lti.deploymentsOfRegistration(tenant, r.id))

const registrationId = (input: { path: Record<string, string | undefined> }) =>
  pathId(input, 'id', 'lti_registration', Uuid)

export const listRegistrations = route('GET /api/v1/lti/registrations', async ({ tenant, query }) => {
  const page = paging(query)
  // A tenant registers a handful of platforms: one Query, ordered and paged in memory.
  const all = (await lti.listRegistrations(tenant)).sort(
    (a, b) => a.createdAt.localeCompare(b.createdAt) || (a.id < b.id ? -1 : 1),
  )
  const items = all.slice(page.offset, page.offset + page.perPage)
  return ok(await Promise.all(items.map((r) => withDeployments(tenant, r))), listMeta(page, all.length))
})

export const createRegistration = route('POST /api/v1/lti/registrations', async ({ tenant, body }) => {
  const input = parseBody(CreateLtiRegistrationInput, body)
  const r = await lti.register(tenant, {
    issuer: input.issuer,
    clientId: input.client_id,
    jwksUrl: input.jwks_url,
    authUrl: input.auth_url,
    ...(input.token_url !== undefined ? { tokenUrl: input.token_url } : {}),
    deepLinking: input.deep_linking ?? false,
  })
  return created(toLtiRegistrationResource(r, []))
})

export const getRegistration = route('GET /api/v1/lti/registrations/{id}', async ({ tenant, ...input }) =>
  ok(await withDeployments(tenant, await lti.registrationOf(tenant, registrationId(input)))),
)

export const updateRegistration = route(
  'PATCH /api/v1/lti/registrations/{id}',
  async ({ tenant, body, ...input }) => {
    const id = registrationId(input)
    const change = parseBody(UpdateLtiRegistrationInput, body, {})
    const r = await lti.updateRegistrationOf(tenant, id, {
      jwksUrl: change.jwks_url,
      authUrl: change.auth_url,
      tokenUrl: change.token_url,
      deepLinking: change.deep_linking,
      isActive: change.is_active,
    })
    return ok(await withDeployments(tenant, r))
  },
)

export const deleteRegistration = route(
  'DELETE /api/v1/lti/registrations/{id}',
  async ({ tenant, ...input }) => {
    await lti.deleteRegistrationOf(tenant, registrationId(input))
    return noContent()
  },
)

export const addDeployment = route(
  'POST /api/v1/lti/registrations/{id}/deployments',
  async ({ tenant, body, ...input }) => {
    const id = registrationId(input)
    const d = parseBody(AddLtiDeploymentInput, body)
    return created(
      toLtiDeploymentResource(await lti.addDeployment(tenant, id, d.deployment_id, d.course_id ?? null)),
    )
  },
)

export const removeDeployment = route(
  'DELETE /api/v1/lti/registrations/{id}/deployments/{deployment_id}',
  async ({ tenant, ...input }) => {
    const id = registrationId(input)
    const deploymentId = pathId(input, 'deployment_id', 'lti_deployment', v.pipe(v.string(), v.nonEmpty()))
    await lti.removeDeployment(tenant, id, deploymentId)
    return noContent()
  },
)

export const handler = httpStack([
  listRegistrations,
  createRegistration,
  getRegistration,
  updateRegistration,
  deleteRegistration,
  addDeployment,
  removeDeployment,
])
