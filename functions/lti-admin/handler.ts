/**
 * Route group `lti-admin`: a tenant's LTI platform registrations and deployments over the API
 * (api-additions section 4; issue 31), admin scope, through the services `lms lti ...` uses. A
 * function of its own, apart from the keyless `lti` group: these routes need the table and no more,
 * while the `lti` function may read the secret that seals the tool's private signing keys
 * (decision 0043). Dynamic Registration links are made and opened here too (decision 0051): a
 * registration is written, and no signing key is needed.
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
import { pathId, publicRoute, route } from '../../shared/http/route.ts'
import { httpStack } from '../../shared/http/stack.ts'
import { resolveTenant } from '../../shared/http/tenant-from-host.ts'
import { toolUrls } from '../../shared/http/tool-urls.ts'
import { tenantServes } from '../../shared/domain/tenants/tenant.ts'
import * as dynamic from '../../shared/services/lti/lti-dynamic-registration-service.ts'
import * as lti from '../../shared/services/lti/lti-registrations-service.ts'
import { frameAncestorsFor } from '../lti/pages.ts'
import { registeredPage, refusedPage } from './registration-pages.ts'
import {
  DynamicRegistrationQuery,
  RegistrationLinkSchema,
  toLtiDeploymentResource,
  toLtiRegistrationResource,
} from './representation.ts'

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

/** The link takes no options: a body, if any, is an empty object. */
const NoOptions = v.strictObject({})

export const createRegistrationLink = route(
  'POST /api/v1/lti/registration-links',
  async ({ tenant, body, keyId, event }) => {
    parseBody(NoOptions, body, {})
    const link = await dynamic.createRegistrationLink(tenant, toolUrls(event), keyId)
    return created({
      url: link.url,
      expires_at: link.expiresAt,
    } satisfies v.InferOutput<typeof RegistrationLinkSchema>)
  },
)

/**
 * The link, opened by the platform with `openid_configuration` and `registration_token` (Dynamic
 * Registration 3.3). Only a UUID can be a link's token; anything else, and a tenant that does not
 * serve, is refused as a used link is, without a write.
 */
export const openRegistrationLink = publicRoute(
  'GET /api/v1/lti/dynamic-registration/{token}',
  async ({ event, path, query }) => {
    const urls = toolUrls(event)
    const frame = frameAncestorsFor(urls.origin)
    const tenant = await resolveTenant(event)
    const token = path.token
    if (!tenantServes(tenant.status) || !v.is(Uuid, token)) return refusedPage('link_unusable', frame)
    const params = v.parse(DynamicRegistrationQuery, query)
    const outcome = await dynamic.registerFromLink(
      tenant,
      {
        token,
        openidConfiguration: params.openid_configuration,
        registrationToken: params.registration_token,
      },
      urls,
    )
    if (outcome.kind === 'refused') return refusedPage(outcome.code, frame)
    return registeredPage(outcome.registration.issuer, outcome.deployment !== null, frame)
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
  createRegistrationLink,
  openRegistrationLink,
])
